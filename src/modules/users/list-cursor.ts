import { type CursorFormat, hasExactly, SignedCursorCodec, UUID } from '../../lib/signed-cursor.js';

/** Where a page of the operators' user list ends: the last id shown (the list is in id order). */
export interface UserListCursor {
  id: string;
}

const USER_LIST_CURSOR: CursorFormat<UserListCursor> = {
  // Domain separation: the key signs user list cursors of this format and nothing else.
  label: 'user-list-cursor:v1:',
  toWire: (cursor) => ({ i: cursor.id }),
  fromWire: (object) =>
    hasExactly(object, ['i']) && typeof object.i === 'string' && UUID.test(object.i)
      ? { id: object.i }
      : undefined,
};

/** User list cursors, signed with the key every instance shares (migration 0038). */
export class UserListCursorCodec extends SignedCursorCodec<UserListCursor> {
  constructor(loadKey: () => Promise<Uint8Array>) {
    super(USER_LIST_CURSOR, loadKey);
  }
}
