import { cursorRule } from '../../validation/cursor-rule.js';
import { integer, string } from '../../validation/field-kinds.js';
import { rules } from '../../validation/rule-list.js';
import type { ExportListCursorCodec } from './cursor.js';

export function exportListRules(codec: ExportListCursorCodec) {
  return rules({
    limit: integer().min(1).max(100).describe('Exports per page, default 20.'),
    // No max() rule: an over-long cursor is as invalid as any other we did not make, and says so the same way.
    cursor: string()
      .convert(cursorRule('export_list_cursor', codec))
      .describe('`next_cursor` of the previous page.'),
  });
}
