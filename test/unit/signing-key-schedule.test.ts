import { describe, expect, it } from 'vitest';
import {
  CLOCK_LEEWAY_MS,
  droppable,
  publishedAt,
  rotation,
  type ScheduledKey,
  signingKeyAt,
} from '../../src/modules/signing-keys/schedule.js';

const at = (minutes: number) => new Date(Date.UTC(2026, 10, 28, 12, 0) + minutes * 60_000);
const key = (kid: string, publish: number, sign: number, retire: number | null = null): ScheduledKey => ({
  kid,
  publishFrom: at(publish),
  signFrom: at(sign),
  retireAfter: retire === null ? null : at(retire),
});
const kids = (keys: ScheduledKey[]) => keys.map((k) => k.kid);

describe('the signing keys schedule', () => {
  // a signs from 0; b is published at 30 and signs from 40; a is retired at 46 (40 + a 5-minute TTL + 1).
  const a = key('a', 0, 0, 46);
  const b = key('b', 30, 40);
  const keys = [b, a];

  it('signs with the latest key whose signing has begun', () => {
    expect(signingKeyAt(keys, at(-1))).toBeUndefined();
    expect(signingKeyAt(keys, at(0))?.kid).toBe('a');
    expect(signingKeyAt(keys, at(39.99))?.kid).toBe('a');
    expect(signingKeyAt(keys, at(40))?.kid).toBe('b');
    expect(signingKeyAt(keys, at(100))?.kid).toBe('b');
    expect(signingKeyAt([], at(0))).toBeUndefined();
  });

  it('publishes the next key before it signs and the last one until its tokens have expired', () => {
    expect(kids(publishedAt(keys, at(29)))).toEqual(['a']);
    expect(kids(publishedAt(keys, at(30)))).toEqual(['a', 'b']);
    expect(kids(publishedAt(keys, at(45.99)))).toEqual(['a', 'b']);
    expect(kids(publishedAt(keys, at(46)))).toEqual(['b']);
  });

  it('drops only retired keys', () => {
    expect(kids(droppable(keys, at(45)))).toEqual([]);
    expect(kids(droppable(keys, at(46)))).toEqual(['a']);
  });

  it('schedules a rotation: published now, signing after the publish-ahead, the old ones retired after it', () => {
    const plan = rotation([key('a', 0, 0), key('gone', -100, -100, -10)], at(30), 10 * 60_000, 5 * 60_000);
    expect(plan).toEqual({
      next: { publishFrom: at(30), signFrom: at(40) },
      retire: [{ kid: 'a', retireAfter: new Date(at(45).getTime() + CLOCK_LEEWAY_MS) }],
    });
  });

  it('keeps a token signed just before the switch verifiable until it expires', () => {
    const ttlMs = 5 * 60_000;
    const old = key('a', 0, 0);
    const plan = rotation([old], at(30), 10 * 60_000, ttlMs);
    const next = { kid: 'b', ...plan.next, retireAfter: null };
    const after = [{ ...old, retireAfter: plan.retire[0]?.retireAfter ?? null }, next];
    const lastSignedByA = at(39.99);
    expect(signingKeyAt(after, lastSignedByA)?.kid).toBe('a');
    const itsExpiry = new Date(lastSignedByA.getTime() + ttlMs);
    expect(kids(publishedAt(after, itsExpiry))).toEqual(['a', 'b']);
  });
});
