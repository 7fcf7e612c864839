import { integer, string } from '../../validation/field-kinds.js';
import { rules } from '../../validation/rule-list.js';
import type { ConvertingRule } from '../../validation/types.js';
import { type ImageLimits, imageListField } from '../images/rules.js';
import { FEED_ORDERS, type FeedCursor, type FeedCursorCodec } from './cursor.js';

/** A post holds at most this many images (the multipart parser allows one file more, so 5 is a 422). */
export const MAX_POST_IMAGES = 4;

/** The post a route acts on, from its path (`/post/:id/like`): any id that names no post is a 404. */
export const postIdRules = rules({ id: string().required().describe('The post id.') });

export function createPostRules(limits: ImageLimits) {
  return rules({
    text: string().required().max(5000).describe('At most 5,000 characters (a Korean syllable is one).'),
    images: imageListField(limits, MAX_POST_IMAGES),
  });
}

/**
 * A cursor this service made (its HMAC checks out) for the order being asked for: one from the other order
 * would walk the wrong index. Any other string is "The selected cursor is invalid.", never a 500. The field's
 * value becomes the decoded cursor, so the service never decodes it twice.
 */
function cursorRule(codec: FeedCursorCodec): ConvertingRule<string, FeedCursor> {
  return {
    name: 'feed_cursor',
    failures: [{ rule: 'in' }],
    check: async (text, context) => {
      const cursor = await codec.decode(text);
      if (!cursor) return { rule: 'in' };
      const order = context.bag.order ?? 'new';
      // An invalid `order` is reported on its own field; the cursor is then only checked for being ours.
      if (FEED_ORDERS.includes(order as never) && cursor.order !== order) return { rule: 'in' };
      return { converted: cursor };
    },
  };
}

export function feedRules(codec: FeedCursorCodec) {
  return rules({
    order: string()
      .in([...FEED_ORDERS])
      .describe('`new` (default): newest first. `hot`: by hot score.'),
    limit: integer().min(1).max(100).describe('Posts per page, default 20.'),
    // No max() rule: an over-long cursor is as invalid as any other we did not make, and says so the same way.
    cursor: string()
      .convert(cursorRule(codec))
      .describe('`next_cursor` of the previous page, with the same `order`.'),
  });
}
