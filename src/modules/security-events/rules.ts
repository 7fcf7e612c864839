import { cursorRule } from '../../validation/cursor-rule.js';
import { integer, string } from '../../validation/field-kinds.js';
import { rules } from '../../validation/rule-list.js';
import type { ActivityCursorCodec } from './cursor.js';

export function activityRules(codec: ActivityCursorCodec) {
  return rules({
    limit: integer().min(1).max(100).describe('Events per page, default 20.'),
    // No max() rule: an over-long cursor is as invalid as any other we did not make, and says so the same way.
    cursor: string()
      .convert(cursorRule('activity_cursor', codec))
      .describe('`next_cursor` of the previous page.'),
  });
}
