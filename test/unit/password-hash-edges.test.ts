import { hash as bcryptHash } from '@node-rs/bcrypt';
import { describe, expect, it } from 'vitest';
import { isLegacyBcryptHash, verifyLegacyBcrypt } from '../../src/lib/legacy-bcrypt.js';
import { type HashOperation, PasswordHasher } from '../../src/lib/passwords.js';

/** The cheapest cost argon2 allows: these tests are about behaviour, not strength. */
const CHEAP = { memoryKib: 1024, timeCost: 1, parallelism: 1 };

describe('password hashes at the edges', () => {
  it('asks for a rehash when any one of memory, time or parallelism is below today’s', () => {
    const today = new PasswordHasher({ memoryKib: 2048, timeCost: 2, parallelism: 1 });
    const stored = (m: number, t: number, p: number) => `$argon2id$v=19$m=${m},t=${t},p=${p}$c2FsdA$aGFzaA`;
    expect(today.needsRehash(stored(2048, 2, 1))).toBe(false);
    expect(today.needsRehash(stored(1024, 2, 1))).toBe(true);
    expect(today.needsRehash(stored(2048, 1, 1))).toBe(true);
    // Costs of more than one digit are read whole.
    expect(today.needsRehash(stored(65536, 12, 1))).toBe(false);
    expect(new PasswordHasher({ ...CHEAP, parallelism: 12 }).needsRehash(stored(1024, 1, 12))).toBe(false);
    expect(today.needsRehash(`x${stored(2048, 2, 1)}`)).toBe(true);
  });

  it('never verifies a stored value that is neither argon2 nor bcrypt', async () => {
    const hasher = new PasswordHasher(CHEAP);
    const argon = await hasher.hash('pw');
    expect(await hasher.verify(argon, 'pw')).toBe(true);
    expect(await hasher.verify(argon.replace('$argon2id$', '$scrypt$'), 'pw')).toBe(false);
  });

  it('tells its observer when each hash and verify starts and ends', async () => {
    const events: string[] = [];
    const observer = {
      started(operation: HashOperation) {
        events.push(`start ${operation}`);
        return () => events.push(`end ${operation}`);
      },
    };
    const hasher = new PasswordHasher(CHEAP, observer);
    const stored = await hasher.hash('pw');
    await hasher.verify(stored, 'pw');
    expect(events).toEqual(['start hash', 'end hash', 'start verify', 'end verify']);
  });

  it('spends a real verification on an account without a password', async () => {
    const events: string[] = [];
    const hasher = new PasswordHasher(CHEAP, {
      started(operation) {
        events.push(operation);
        return () => undefined;
      },
    });
    expect(await hasher.verifyNothing('timing-equaliser-password')).toBe(false);
    expect(events).toEqual(['hash', 'verify']);
  });

  it('takes a legacy bcrypt hash only whole, and only at costs 4 to 16', async () => {
    const body = (await bcryptHash('pw', 4)).slice(7);
    expect(isLegacyBcryptHash(`$2y$04$${body}`)).toBe(true);
    expect(isLegacyBcryptHash(`x$2y$04$${body}`)).toBe(false);
    expect(isLegacyBcryptHash(`$2y$16$${body}`)).toBe(true);
    expect(isLegacyBcryptHash(`$2y$17$${body}`)).toBe(false);
    expect(await verifyLegacyBcrypt(`x$2y$04$${body}`, 'pw')).toBe(false);
    // A well-formed hash the library cannot read is a failed check, not an error.
    expect(await verifyLegacyBcrypt(`$2y$04$${'.'.repeat(53)}`, 'pw')).toBe(false);
  });
});
