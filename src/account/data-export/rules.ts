import { integer, string } from '../../validation/field-kinds.js';
import { rules } from '../../validation/rule-list.js';
import type { ConvertingRule } from '../../validation/types.js';
import type { ExportListCursor, ExportListCursorCodec } from './cursor.js';

/**
 * A cursor this service made (its HMAC checks out); any other string is "The selected cursor is invalid.",
 * never a 500. The field's value becomes the decoded cursor, so the service never decodes it twice.
 */
function cursorRule(codec: ExportListCursorCodec): ConvertingRule<string, ExportListCursor> {
  return {
    name: 'export_list_cursor',
    failures: [{ rule: 'in' }],
    check: async (text) => {
      const cursor = await codec.decode(text);
      return cursor ? { converted: cursor } : { rule: 'in' };
    },
  };
}

export function exportListRules(codec: ExportListCursorCodec) {
  return rules({
    limit: integer().min(1).max(100).describe('Exports per page, default 20.'),
    // No max() rule: an over-long cursor is as invalid as any other we did not make, and says so the same way.
    cursor: string().convert(cursorRule(codec)).describe('`next_cursor` of the previous page.'),
  });
}
