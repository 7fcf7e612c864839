import { describe, expect, it } from 'vitest';
import type { HashingPool } from '../../src/lib/hashing-pool.js';
import { type HashOperation, PasswordHasher } from '../../src/lib/passwords.js';

const COST = { memoryKib: 1024, timeCost: 1, parallelism: 1 };

/** A pool that answers at once and writes down what it was asked: the hasher's side of the pool. */
function fakePool(verifies: boolean) {
  const asked: unknown[][] = [];
  const pool = {
    hash: async (password: string, cost: unknown) => {
      asked.push(['hash', password, cost]);
      return `$argon2id$v=19$m=1024,t=1,p=1$pooled$${password}`;
    },
    verify: async (storedHash: string, password: string) => {
      asked.push(['verify', storedHash, password]);
      return verifies;
    },
  };
  return { pool: pool as unknown as HashingPool, asked };
}

function recorder() {
  const events: string[] = [];
  const observer = {
    started(operation: HashOperation) {
      events.push(`start ${operation}`);
      return () => events.push(`end ${operation}`);
    },
  };
  return { events, observer };
}

describe('PasswordHasher with a hashing pool', () => {
  it('hashes and verifies in the pool, with today’s cost, and tells its observer', async () => {
    const { pool, asked } = fakePool(true);
    const { events, observer } = recorder();
    const hasher = new PasswordHasher(COST, observer, pool);
    expect(await hasher.hash('pw')).toBe('$argon2id$v=19$m=1024,t=1,p=1$pooled$pw');
    expect(await hasher.verify('$argon2id$stored', 'pw')).toBe(true);
    expect(asked).toEqual([
      ['hash', 'pw', COST],
      ['verify', '$argon2id$stored', 'pw'],
    ]);
    expect(events).toEqual(['start hash', 'end hash', 'start verify', 'end verify']);
  });

  it('gives the pool’s refusal as it is, and never sends it a hash that is not argon2', async () => {
    const { pool, asked } = fakePool(false);
    const hasher = new PasswordHasher(COST, undefined, pool);
    expect(await hasher.verify('$argon2id$stored', 'pw')).toBe(false);
    expect(await hasher.verify('$scrypt$stored', 'pw')).toBe(false);
    expect(asked).toEqual([['verify', '$argon2id$stored', 'pw']]);
  });

  it('ends the observer’s measure when the pool fails (a full queue is a 503, not a wrong password)', async () => {
    const { events, observer } = recorder();
    const full = new Error('queue full');
    const pool = {
      hash: async () => Promise.reject(full),
      verify: async () => Promise.reject(full),
    } as unknown as HashingPool;
    const hasher = new PasswordHasher(COST, observer, pool);
    await expect(hasher.hash('pw')).rejects.toBe(full);
    await expect(hasher.verify('$argon2id$stored', 'pw')).rejects.toBe(full);
    expect(events).toEqual(['start hash', 'end hash', 'start verify', 'end verify']);
  });

  it('makes the dummy hash of verifyNothing once, in the pool', async () => {
    const { pool, asked } = fakePool(true);
    const hasher = new PasswordHasher(COST, undefined, pool);
    expect(await hasher.verifyNothing('a')).toBe(false);
    expect(await hasher.verifyNothing('b')).toBe(false);
    const dummy = '$argon2id$v=19$m=1024,t=1,p=1$pooled$timing-equaliser-password';
    expect(asked).toEqual([
      ['hash', 'timing-equaliser-password', COST],
      ['verify', dummy, 'a'],
      ['verify', dummy, 'b'],
    ]);
  });
});
