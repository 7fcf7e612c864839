import { verify } from '@node-rs/bcrypt';

/**
 * A bcrypt hash of the Laravel app this service replaces: `$2y$` (PHP's name for `$2b$`), `$2a$` or `$2b$`,
 * a cost, and 53 characters of salt and digest. Costs above 16 are refused: each verify would hold a thread of
 * libuv's pool for seconds (Laravel's default is 10, the library's floor is 4).
 */
const LEGACY_BCRYPT_HASH = /^\$2[aby]\$(0[4-9]|1[0-6])\$[./A-Za-z0-9]{53}$/;

export function isLegacyBcryptHash(storedHash: string): boolean {
  return LEGACY_BCRYPT_HASH.test(storedHash);
}

/**
 * Checks a password against a legacy bcrypt hash. The native binding's async verify runs on libuv's thread
 * pool, so a login never blocks the event loop. `$2y$` is written as `$2b$` for the library: the same
 * algorithm under PHP's name. A malformed hash is a failed check, never an error.
 */
export async function verifyLegacyBcrypt(storedHash: string, password: string): Promise<boolean> {
  if (!isLegacyBcryptHash(storedHash)) return false;
  try {
    return await verify(password, storedHash.replace(/^\$2y\$/, '$2b$'));
  } catch {
    return false;
  }
}
