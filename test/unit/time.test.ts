import { describe, expect, it } from 'vitest';
import { iso } from '../../src/lib/time.js';

describe('iso', () => {
  it('writes a Date as ISO 8601 UTC with milliseconds', () => {
    expect(iso(new Date(Date.UTC(2026, 10, 28, 9, 5, 7, 42)))).toBe('2026-11-28T09:05:07.042Z');
  });

  it('parses a string first, an offset included', () => {
    expect(iso('2026-01-01T00:00:00+09:00')).toBe('2025-12-31T15:00:00.000Z');
    expect(iso('2026-11-28 09:05:07.042+00')).toBe('2026-11-28T09:05:07.042Z');
  });
});
