import { hash } from '@node-rs/bcrypt';
import { describe, expect, it } from 'vitest';
import { isLegacyBcryptHash, verifyLegacyBcrypt } from '../../src/lib/legacy-bcrypt.js';
import { PasswordHasher } from '../../src/lib/passwords.js';

/** A hash as Laravel writes it: the library's bcrypt under PHP's `$2y$` prefix. */
async function laravelHash(password: string, cost = 4): Promise<string> {
  return `$2y$${(await hash(password, cost)).slice(4)}`;
}

describe('legacy bcrypt hashes of the old app', () => {
  it('verifies a Laravel $2y$ hash, and the same hash under $2a$ and $2b$', async () => {
    const laravel = await laravelHash('old password 1');
    expect(laravel).toMatch(/^\$2y\$04\$/);
    for (const prefix of ['$2y$', '$2a$', '$2b$']) {
      const stored = `${prefix}${laravel.slice(4)}`;
      expect(isLegacyBcryptHash(stored)).toBe(true);
      expect(await verifyLegacyBcrypt(stored, 'old password 1')).toBe(true);
      expect(await verifyLegacyBcrypt(stored, 'old password 2')).toBe(false);
    }
  });

  it('refuses other prefixes, costs out of range and malformed hashes without throwing', async () => {
    const laravel = await laravelHash('pw');
    const body = laravel.slice(7);
    for (const stored of [
      `$2x$04$${body}`,
      `$2$04$${body}`,
      `$2y$03$${body}`,
      `$2y$17$${body}`,
      // The library itself takes a one-digit cost (and verifies it): only the pattern refuses it.
      `$2y$4$${body}`,
      `${laravel}x`,
      laravel.slice(0, -1),
      `${laravel.slice(0, -1)}!`,
      '',
    ]) {
      expect(isLegacyBcryptHash(stored), stored).toBe(false);
      expect(await verifyLegacyBcrypt(stored, 'pw'), stored).toBe(false);
    }
  });

  it('is what PasswordHasher.verify uses for a bcrypt hash, and such a hash always needs a rehash', async () => {
    const hasher = new PasswordHasher({ memoryKib: 1024, timeCost: 1, parallelism: 1 });
    const laravel = await laravelHash('from the old app');
    expect(await hasher.verify(laravel, 'from the old app')).toBe(true);
    expect(await hasher.verify(laravel, 'from the new app')).toBe(false);
    expect(hasher.needsRehash(laravel)).toBe(true);
  });
});
