import { randomBytes, randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { decodeCursor, encodeCursor } from '../../src/modules/posts/cursor.js';
import { decodeActivityCursor, encodeActivityCursor } from '../../src/modules/security-events/cursor.js';

const KEY = randomBytes(32);

describe('signed keyset cursors', () => {
  it('round-trip an activity cursor, and refuse it under another key', () => {
    const cursor = { at: new Date(1_750_000_000_123), id: randomUUID() };
    const text = encodeActivityCursor(KEY, cursor);
    expect(decodeActivityCursor(KEY, text)).toEqual(cursor);
    expect(decodeActivityCursor(randomBytes(32), text)).toBeUndefined();
  });

  it('never take one list’s cursor for another’s, even signed with the same key', () => {
    const id = randomUUID();
    const feed = encodeCursor(KEY, { order: 'new', createdAt: new Date(1_750_000_000_000), id });
    const activity = encodeActivityCursor(KEY, { at: new Date(1_750_000_000_000), id });
    expect(decodeActivityCursor(KEY, feed)).toBeUndefined();
    expect(decodeCursor(KEY, activity)).toBeUndefined();
  });

  it('refuse a changed, joined or overlong activity cursor', () => {
    const id = randomUUID();
    const good = encodeActivityCursor(KEY, { at: new Date(0), id });
    expect(decodeActivityCursor(KEY, good)).toEqual({ at: new Date(0), id });
    for (const tamper of [
      `${good}.x`,
      good.replace('.', ''),
      `${good.slice(0, -1)}${good.endsWith('A') ? 'B' : 'A'}`,
    ]) {
      expect(decodeActivityCursor(KEY, tamper)).toBeUndefined();
    }
    expect(decodeActivityCursor(KEY, 'a'.repeat(600))).toBeUndefined();
  });
});
