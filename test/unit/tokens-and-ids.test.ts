import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { newId } from '../../src/lib/ids.js';
import { hashApiToken, newApiToken } from '../../src/lib/tokens.js';

describe('newApiToken', () => {
  it('is 256 random bits in base64url (43 characters, no padding)', () => {
    const token = newApiToken();
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(token, 'base64url')).toHaveLength(32);
  });

  it('never repeats', () => {
    const tokens = new Set(Array.from({ length: 1000 }, () => newApiToken()));
    expect(tokens.size).toBe(1000);
  });
});

describe('hashApiToken', () => {
  it('is the SHA-256 of the token text', () => {
    const token = newApiToken();
    expect(hashApiToken(token)).toEqual(createHash('sha256').update(token).digest());
    expect(hashApiToken(token)).toHaveLength(32);
  });

  it('tells different tokens apart', () => {
    expect(hashApiToken('a')).not.toEqual(hashApiToken('b'));
  });
});

describe('newId', () => {
  it('is a UUIDv7', () => {
    expect(newId()).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });

  it('sorts in creation order, so new rows land at the end of the index', () => {
    const ids = Array.from({ length: 200 }, () => newId());
    expect([...ids].sort()).toEqual(ids);
  });
});
