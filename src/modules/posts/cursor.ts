import { createHmac, timingSafeEqual } from 'node:crypto';

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

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const BASE64URL = /^[A-Za-z0-9_-]+$/;
/** Far above any cursor we make (~150 characters), low enough that decoding a hostile one costs nothing. */
export const MAX_CURSOR_LENGTH = 512;
/** 128 bits of HMAC-SHA256: a client cannot make a cursor we did not. */
const MAC_BYTES = 16;
/** Domain separation: the key signs feed cursors of this format and nothing else. */
const MAC_LABEL = 'feed-cursor:v1:';
/** Timestamps a cursor may carry: 1970 … 2200, in milliseconds. */
const MAX_MILLIS = 7_258_118_400_000;

function mac(key: Uint8Array, payload: string): Buffer {
  return createHmac('sha256', key)
    .update(MAC_LABEL + payload)
    .digest()
    .subarray(0, MAC_BYTES);
}

function wire(cursor: FeedCursor): Record<string, unknown> {
  return cursor.order === 'new'
    ? { o: 'new', t: cursor.createdAt.getTime(), i: cursor.id }
    : { o: 'hot', s: cursor.score, i: cursor.id, b: cursor.bound.getTime() };
}

/** An opaque string for the client: base64url(JSON of the sort key) "." base64url(HMAC of it). */
export function encodeCursor(key: Uint8Array, cursor: FeedCursor): string {
  const payload = Buffer.from(JSON.stringify(wire(cursor))).toString('base64url');
  return `${payload}.${mac(key, payload).toString('base64url')}`;
}

function millis(value: unknown): Date | undefined {
  return Number.isSafeInteger(value) && (value as number) >= 0 && (value as number) <= MAX_MILLIS
    ? new Date(value as number)
    : undefined;
}

function hasExactly(object: Record<string, unknown>, keys: string[]): boolean {
  const own = Object.keys(object);
  return own.length === keys.length && keys.every((key) => own.includes(key));
}

function fromWire(value: unknown): FeedCursor | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const object = value as Record<string, unknown>;
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
}

/**
 * The cursor a string stands for, or undefined for anything we did not make: a wrong shape, a bad signature
 * (checked in constant time, before the payload is parsed), or a payload that is not exactly a cursor.
 */
export function decodeCursor(key: Uint8Array, text: string): FeedCursor | undefined {
  if (text.length > MAX_CURSOR_LENGTH) return undefined;
  const parts = text.split('.');
  if (parts.length !== 2) return undefined;
  const [payload = '', signature = ''] = parts;
  if (!BASE64URL.test(payload) || !BASE64URL.test(signature)) return undefined;
  const given = Buffer.from(signature, 'base64url');
  // Re-encoding must give back the same text: no padding, no stray bits in the last character.
  if (given.length !== MAC_BYTES || given.toString('base64url') !== signature) return undefined;
  if (!timingSafeEqual(given, mac(key, payload))) return undefined;
  try {
    return fromWire(JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')));
  } catch {
    return undefined;
  }
}

/**
 * Encodes and decodes cursors with the key the database keeps for every instance (migration 0004), loaded on
 * first use and then held for the life of the process.
 */
export class FeedCursorCodec {
  #key: Promise<Uint8Array> | undefined;

  constructor(private readonly loadKey: () => Promise<Uint8Array>) {}

  private key(): Promise<Uint8Array> {
    this.#key ??= this.loadKey().catch((error: unknown) => {
      // Not cached when it failed (the database was down, say): the next request tries again.
      this.#key = undefined;
      throw error;
    });
    return this.#key;
  }

  async encode(cursor: FeedCursor): Promise<string> {
    return encodeCursor(await this.key(), cursor);
  }

  async decode(text: string): Promise<FeedCursor | undefined> {
    return decodeCursor(await this.key(), text);
  }
}
