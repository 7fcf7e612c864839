import {
  type CursorFormat,
  decodeSignedCursor,
  encodeSignedCursor,
  hasExactly,
  millis,
  SignedCursorCodec,
  UUID,
} from '../../lib/signed-cursor.js';

/** Where a page of a user's activity ends, in the list's keyset order: (at, id), both descending. */
export interface ActivityCursor {
  at: Date;
  id: string;
}

const ACTIVITY_CURSOR: CursorFormat<ActivityCursor> = {
  // Domain separation: the key signs activity cursors of this format and nothing else.
  label: 'activity-cursor:v1:',
  toWire: (cursor) => ({ t: cursor.at.getTime(), i: cursor.id }),
  fromWire: (object) => {
    const at = millis(object.t);
    if (!at || !hasExactly(object, ['t', 'i']) || typeof object.i !== 'string' || !UUID.test(object.i)) {
      return undefined;
    }
    return { at, id: object.i };
  },
};

export function encodeActivityCursor(key: Uint8Array, cursor: ActivityCursor): string {
  return encodeSignedCursor(ACTIVITY_CURSOR, key, cursor);
}

export function decodeActivityCursor(key: Uint8Array, text: string): ActivityCursor | undefined {
  return decodeSignedCursor(ACTIVITY_CURSOR, key, text);
}

/** Activity cursors, signed with the key every instance shares (migration 0016). */
export class ActivityCursorCodec extends SignedCursorCodec<ActivityCursor> {
  constructor(loadKey: () => Promise<Uint8Array>) {
    super(ACTIVITY_CURSOR, loadKey);
  }
}
