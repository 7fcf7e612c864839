import type { ConvertingRule } from './types.js';

/** What a cursor rule needs of a signed-cursor codec: the cursor, or undefined for one this service did not make. */
export interface CursorDecoder<T> {
  decode(text: string): Promise<T | undefined>;
}

/**
 * A cursor this service made (its HMAC checks out); any other string is "The selected cursor is invalid.",
 * never a 500. The field's value becomes the decoded cursor, so the service never decodes it twice.
 */
export function cursorRule<T>(name: string, codec: CursorDecoder<T>): ConvertingRule<string, T> {
  return {
    name,
    failures: [{ rule: 'in' }],
    check: async (text) => {
      const cursor = await codec.decode(text);
      return cursor ? { converted: cursor } : { rule: 'in' };
    },
  };
}
