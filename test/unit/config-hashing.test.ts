import { availableParallelism } from 'node:os';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { configError } from '../helpers/config.js';

describe('password hashing configuration', () => {
  it('defaults to one process per core, a bounded queue and a bounded wait', () => {
    expect(loadConfig({}).hashing).toEqual({
      workers: availableParallelism(),
      queueLimit: 64,
      timeoutMs: 10_000,
    });
  });

  it('reads HASH_WORKERS, HASH_QUEUE_LIMIT and HASH_TIMEOUT_MS', () => {
    const env = { HASH_WORKERS: '3', HASH_QUEUE_LIMIT: '0', HASH_TIMEOUT_MS: '5000' };
    expect(loadConfig(env).hashing).toEqual({ workers: 3, queueLimit: 0, timeoutMs: 5000 });
  });

  it('refuses no workers at all and a timeout of nothing, naming the variable', () => {
    expect(configError({ HASH_WORKERS: '0' }).message).toContain('HASH_WORKERS');
    expect(configError({ HASH_TIMEOUT_MS: 'soon' }).message).toContain('HASH_TIMEOUT_MS');
  });
});
