import { availableParallelism } from 'node:os';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { configError } from '../helpers/config.js';

describe('image renderer configuration', () => {
  it('defaults to half the cores (at least one), a short queue and bounded renders', () => {
    expect(loadConfig({}).imageRendering).toEqual({
      workers: Math.max(1, Math.floor(availableParallelism() / 2)),
      queueLimit: 8,
      timeoutMs: 30_000,
      heapMb: 64,
    });
  });

  it('reads IMAGE_WORKERS, IMAGE_QUEUE_LIMIT, IMAGE_TIMEOUT_MS and IMAGE_WORKER_HEAP_MB', () => {
    const env = {
      IMAGE_WORKERS: '3',
      IMAGE_QUEUE_LIMIT: '0',
      IMAGE_TIMEOUT_MS: '5000',
      IMAGE_WORKER_HEAP_MB: '32',
    };
    expect(loadConfig(env).imageRendering).toEqual({
      workers: 3,
      queueLimit: 0,
      timeoutMs: 5000,
      heapMb: 32,
    });
  });

  it('refuses no workers at all, naming the variable', () => {
    expect(configError({ IMAGE_WORKERS: '0' }).message).toContain('IMAGE_WORKERS');
  });
});
