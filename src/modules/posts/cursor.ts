import {
  type CursorFormat,
  decodeSignedCursor,
  encodeSignedCursor,
  hasExactly,
  millis,
  SignedCursorCodec,
  UUID,
} from '../../lib/signed-cursor.js';

export type FeedOrder = 'new' | 'hot';

export const FEED_ORDERS: readonly FeedOrder[] = ['new', 'hot'];

/**
 * Where a page of the feed ends, in the feed's own keyset order:
 * - `new`: (created_at, id), both descending;
 * - `hot`: (hot_score, id), both descending, plus `bound`, the latest created_at of the walk: posts created
 *   after its first page are left out of the rest of the walk (docs/feed.md says why).
 */
export type FeedCursor =
  | { order: 'new'; createdAt: Date; id: string }
  | { order: 'hot'; score: number; id: string; bound: Date };

const FEED_CURSOR: CursorFormat<FeedCursor> = {
  // Domain separation: the key signs feed cursors of this format and nothing else.
  label: 'feed-cursor:v1:',
  toWire: (cursor) =>
    cursor.order === 'new'
      ? { o: 'new', t: cursor.createdAt.getTime(), i: cursor.id }
      : { o: 'hot', s: cursor.score, i: cursor.id, b: cursor.bound.getTime() },
  fromWire: (object) => {
    if (typeof object.i !== 'string' || !UUID.test(object.i)) return undefined;
    if (object.o === 'new' && hasExactly(object, ['o', 't', 'i'])) {
      const createdAt = millis(object.t);
      return createdAt && { order: 'new', createdAt, id: object.i };
    }
    if (object.o === 'hot' && hasExactly(object, ['o', 's', 'i', 'b'])) {
      const bound = millis(object.b);
      const score = object.s;
      if (!bound || typeof score !== 'number' || !Number.isFinite(score)) return undefined;
      return { order: 'hot', score, id: object.i, bound };
    }
    return undefined;
  },
};

export function encodeCursor(key: Uint8Array, cursor: FeedCursor): string {
  return encodeSignedCursor(FEED_CURSOR, key, cursor);
}

export function decodeCursor(key: Uint8Array, text: string): FeedCursor | undefined {
  return decodeSignedCursor(FEED_CURSOR, key, text);
}

/** Feed cursors, signed with the key the database keeps for every instance (migration 0004). */
export class FeedCursorCodec extends SignedCursorCodec<FeedCursor> {
  constructor(loadKey: () => Promise<Uint8Array>) {
    super(FEED_CURSOR, loadKey);
  }
}
