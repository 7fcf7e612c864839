import { createRequire } from 'node:module';
import type { Redis } from 'ioredis';

/** ioredis, loaded only when REDIS_URL is set (an instance counting in-process never holds it in memory). */
function loadRedis(): typeof Redis {
  return (createRequire(import.meta.url)('ioredis') as typeof import('ioredis')).Redis;
}

export interface StoreLogger {
  warn(details: object, message: string): void;
}

/** How often a Redis outage is logged: once per interval, not once per request or reconnect attempt. */
const WARN_INTERVAL_MS = 30_000;

/** Calls `warn` at most once per interval; the first failure of an outage is always logged. */
export function throttledWarning(logger: StoreLogger, message: string): (error: unknown) => void {
  let lastWarnedAt = Number.NEGATIVE_INFINITY;
  return (error) => {
    const now = Date.now();
    if (now - lastWarnedAt < WARN_INTERVAL_MS) return;
    lastWarnedAt = now;
    logger.warn({ err: error }, message);
  };
}

/**
 * An ioredis client for rate-limit counters. A rate limit is asked on the request path, so nothing here may
 * make a request wait on a Redis that is down: commands are not queued while disconnected (they fail at once
 * and the counter falls back to this process), a hung Redis is cut off after REDIS_COMMAND_TIMEOUT_MS (a
 * tenth of a second by default: Redis answers in well under a millisecond), no command is retried, and the
 * client keeps reconnecting in the background. The 'error' listener is required: without one, ioredis re-emits connection
 * errors as an unhandled 'error' event, which would crash the process.
 */
export function createRedisClient(
  url: string,
  commandTimeoutMs: number,
  onError: (error: unknown) => void,
): Redis {
  const RedisClient = loadRedis();
  const client = new RedisClient(url, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout: commandTimeoutMs,
    connectTimeout: 2000,
    retryStrategy: (attempt) => Math.min(attempt * 200, 5000),
  });
  client.on('error', onError);
  return client;
}

/**
 * Resolves once the client is connected, or as soon as the first attempt fails, or after the timeout: the
 * service starts without Redis (its counters fall back to this process) rather than not at all. Waiting at
 * start matters: until the connection is ready every hit would be counted in this process, not shared.
 */
export function untilReady(client: Redis, timeoutMs: number): Promise<boolean> {
  if (client.status === 'ready') return Promise.resolve(true);
  return new Promise((resolve) => {
    const settle = (ready: boolean) => {
      clearTimeout(timer);
      client.off('ready', onReady);
      client.off('error', onError);
      resolve(ready);
    };
    const onReady = () => settle(true);
    const onError = () => settle(false);
    const timer = setTimeout(() => settle(false), timeoutMs);
    client.once('ready', onReady);
    client.once('error', onError);
  });
}

/** Closes politely when connected (pending replies arrive), at once otherwise (quit would wait on nothing). */
export async function closeRedisClient(client: Redis): Promise<void> {
  if (client.status === 'ready') {
    try {
      await client.quit();
      return;
    } catch {
      // Fall through: the connection went away while quitting.
    }
  }
  client.disconnect();
}
