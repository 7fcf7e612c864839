import { type CursorFormat, hasExactly, SignedCursorCodec, UUID } from '../../lib/signed-cursor.js';

/**
 * Where a page of a user's exports ends: the last export shown. Only its id: the list's order is
 * (created_at, id) and created_at has microseconds, more than a cursor's timestamp could carry without
 * skipping rows, so the repo reads that export's own created_at in the page's statement instead.
 */
export interface ExportListCursor {
  id: string;
}

const EXPORT_LIST_CURSOR: CursorFormat<ExportListCursor> = {
  // Domain separation: the key also makes download links, over `data-export\n<id>`; what it signs under this
  // label is an export list cursor and nothing else, and no link's input starts with it.
  label: 'data-export-list-cursor:v1:',
  toWire: (cursor) => ({ i: cursor.id }),
  fromWire: (object) =>
    hasExactly(object, ['i']) && typeof object.i === 'string' && UUID.test(object.i)
      ? { id: object.i }
      : undefined,
};

/** Export list cursors, signed with the download links' key (migration 0018): no new secret to store. */
export class ExportListCursorCodec extends SignedCursorCodec<ExportListCursor> {
  constructor(loadKey: () => Promise<Uint8Array>) {
    super(EXPORT_LIST_CURSOR, loadKey);
  }
}
