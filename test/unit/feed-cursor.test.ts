import { createHmac, randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  decodeCursor,
  encodeCursor,
  type FeedCursor,
  FeedCursorCodec,
} from '../../src/modules/posts/cursor.js';

const KEY = randomBytes(32);
const ID = '0190c1f4-0b7e-7c3a-9d2e-4f5a6b7c8d9e';

/** Signs any payload the way the codec does, to reach the structural checks behind the signature. */
function signed(payload: unknown, key: Uint8Array = KEY): string {
  const text = Buffer.from(JSON.stringify(payload)).toString('base64url');
  const mac = createHmac('sha256', key).update(`feed-cursor:v1:${text}`).digest().subarray(0, 16);
  return `${text}.${mac.toString('base64url')}`;
}

describe('feed cursor codec', () => {
  it('round-trips both orders exactly, the float score included', () => {
    const cursors: FeedCursor[] = [
      { order: 'new', createdAt: new Date('2026-11-23T09:26:34.335Z'), id: ID },
      { order: 'hot', score: 39_900.355_429_666_67, id: ID, bound: new Date('2026-11-23T10:00:00.001Z') },
      { order: 'hot', score: 0.1 + 0.2, id: ID, bound: new Date(0) },
    ];
    for (const cursor of cursors) expect(decodeCursor(KEY, encodeCursor(KEY, cursor))).toEqual(cursor);
  });

  it('round-trips any score and time (property)', () => {
    fc.assert(
      fc.property(
        fc.double({ noNaN: true, noDefaultInfinity: true }),
        fc.integer({ min: 0, max: 7_258_118_400_000 }),
        fc.uuid({ version: 7 }),
        (score, millis, id) => {
          const cursor: FeedCursor = { order: 'hot', score, id, bound: new Date(millis) };
          const decoded = decodeCursor(KEY, encodeCursor(KEY, cursor));
          // -0 comes back as 0 (JSON has one zero); PostgreSQL compares them equal anyway.
          expect(decoded).toEqual({ ...cursor, score: score === 0 ? 0 : score });
        },
      ),
    );
  });

  it('refuses a cursor signed with another key, or with any byte changed', () => {
    const text = encodeCursor(KEY, { order: 'new', createdAt: new Date(1_700_000_000_000), id: ID });
    expect(decodeCursor(randomBytes(32), text)).toBeUndefined();
    for (let i = 0; i < text.length; i++) {
      if (text[i] === '.') continue;
      const changed = `${text.slice(0, i)}${text[i] === 'A' ? 'B' : 'A'}${text.slice(i + 1)}`;
      expect(decodeCursor(KEY, changed), `position ${i}`).toBeUndefined();
    }
  });

  it.each([
    '',
    'abc',
    '.',
    'a.b.c',
    'eyJ9.AAAAAAAAAAAAAAAAAAAAAA',
    `${'A'.repeat(600)}.AAAAAAAAAAAAAAAAAAAAAA`,
    'e30=.AAAAAAAAAAAAAAAAAAAAAA',
    'e30.AAAAAAAAAAAAAAAAAAAAAA==',
  ])('refuses malformed text %j', (text) => {
    expect(decodeCursor(KEY, text)).toBeUndefined();
  });

  it.each([
    ['not an object', [1, 2]],
    ['unknown order', { o: 'old', t: 1, i: ID }],
    ['missing id', { o: 'new', t: 1 }],
    ['an id that is not a UUID', { o: 'new', t: 1, i: "1' OR '1'='1" }],
    ['an upper-case id', { o: 'new', t: 1, i: ID.toUpperCase() }],
    ['a time as text', { o: 'new', t: '2026-01-01', i: ID }],
    ['a fractional time', { o: 'new', t: 1.5, i: ID }],
    ['a negative time', { o: 'new', t: -1, i: ID }],
    ['a time past 2200', { o: 'new', t: 8e12, i: ID }],
    ['an extra key', { o: 'new', t: 1, i: ID, x: 1 }],
    ['hot without bound', { o: 'hot', s: 1, i: ID }],
    ['hot with a text score', { o: 'hot', s: '1', i: ID, b: 1 }],
    ['hot with a new key', { o: 'hot', s: 1, i: ID, b: 1, t: 1 }],
  ])('refuses a correctly signed payload with %s', (_, payload) => {
    expect(decodeCursor(KEY, signed(payload))).toBeUndefined();
  });

  it('accepts exactly the payload shape it makes', () => {
    expect(decodeCursor(KEY, signed({ o: 'new', t: 5, i: ID }))).toEqual({
      order: 'new',
      createdAt: new Date(5),
      id: ID,
    });
  });

  it('loads the key once, and again after a failed load', async () => {
    let loads = 0;
    let fail = true;
    const codec = new FeedCursorCodec(async () => {
      loads++;
      if (fail) throw new Error('database down');
      return KEY;
    });
    const cursor: FeedCursor = { order: 'new', createdAt: new Date(1), id: ID };
    await expect(codec.encode(cursor)).rejects.toThrow('database down');
    fail = false;
    const text = await codec.encode(cursor);
    expect(await codec.decode(text)).toEqual(cursor);
    expect(await codec.decode('garbage')).toBeUndefined();
    expect(loads).toBe(2);
  });
});
