import { availableParallelism } from 'node:os';
import { type Env, integer } from './env.js';

/** The image renderer pool (src/modules/images/render-pool.ts): how many decode at once, how many wait. */
export interface ImageRenderingConfig {
  workers: number;
  queueLimit: number;
  timeoutMs: number;
  heapMb: number;
}

export function parseImageRendering(env: Env): ImageRenderingConfig {
  // Half the cores by default (1 on 2): the other half stays with logins and the cheap requests.
  const defaultWorkers = Math.max(1, Math.floor(availableParallelism() / 2));
  return {
    workers: integer(env, 'IMAGE_WORKERS', defaultWorkers, 1, 64),
    queueLimit: integer(env, 'IMAGE_QUEUE_LIMIT', 8, 0, 10_000),
    timeoutMs: integer(env, 'IMAGE_TIMEOUT_MS', 30_000, 100, 600_000),
    heapMb: integer(env, 'IMAGE_WORKER_HEAP_MB', 64, 16, 4096),
  };
}

/** MEDIA_SWEEP_INTERVAL_MINUTES: how often unreferenced media files are removed (0 = never; default hourly). */
export function parseMediaSweepInterval(env: Env): number {
  return integer(env, 'MEDIA_SWEEP_INTERVAL_MINUTES', 60, 0, 7 * 24 * 60);
}
