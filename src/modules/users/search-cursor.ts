import { type CursorFormat, hasExactly, SignedCursorCodec } from '../../lib/signed-cursor.js';

/** Where a page of the console's user search ends: the field searched and the last key shown. */
export interface UserSearchCursor {
  field: string;
  key: string;
}

/** Far above any key (an email is at most 255 characters). */
const MAX_KEY_LENGTH = 300;

const USER_SEARCH_CURSOR: CursorFormat<UserSearchCursor> = {
  // Domain separation: the user list's key signs these under a label of their own.
  label: 'console-user-search-cursor:v1:',
  toWire: (cursor) => ({ f: cursor.field, k: cursor.key }),
  fromWire: (object) =>
    hasExactly(object, ['f', 'k']) &&
    typeof object.f === 'string' &&
    typeof object.k === 'string' &&
    object.k.length <= MAX_KEY_LENGTH
      ? { field: object.f, key: object.k }
      : undefined,
};

/** The console search's cursors, signed with the key every instance shares. */
export class UserSearchCursorCodec extends SignedCursorCodec<UserSearchCursor> {
  constructor(loadKey: () => Promise<Uint8Array>) {
    super(USER_SEARCH_CURSOR, loadKey);
  }
}
