import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import { Redis } from 'ioredis';

export type Store = 'memory' | 'redis';

/** The in-process store always; Redis too when REDIS_URL names a server (required in CI by global-setup). */
export const stores: Store[] = process.env.REDIS_URL ? ['memory', 'redis'] : ['memory'];

/**
 * The env that turns rate limits on for one app on this store. Every call gets its own key prefix: other
 * suites and other engineers use the same Redis server, so a test only ever touches its own keys.
 */
export function limitsEnv(store: Store, limits: Record<string, string>, keyPrefix = newKeyPrefix()) {
  return {
    RATE_LIMIT_ENABLED: 'true',
    RATE_LIMIT_KEY_PREFIX: keyPrefix,
    // The limits' own rules are tested here: a command slowed by a busy machine must not send a burst's hits
    // to the in-process fallback (the fallback and its 100 ms default have tests of their own).
    ...(store === 'redis' ? { REDIS_URL: redisUrl(), REDIS_COMMAND_TIMEOUT_MS: '5000' } : {}),
    ...limits,
  };
}

export function newKeyPrefix(): string {
  return `test:rl:${randomBytes(6).toString('hex')}`;
}

function redisUrl(): string {
  const url = process.env.REDIS_URL;
  if (!url) throw new Error('REDIS_URL is not set');
  return url;
}

/** Deletes this prefix's keys, and only those (never FLUSHALL/FLUSHDB on a shared server). */
export async function deleteKeys(keyPrefix: string): Promise<void> {
  if (!process.env.REDIS_URL) return;
  const client = new Redis(redisUrl(), { lazyConnect: true });
  await client.connect();
  try {
    let cursor = '0';
    do {
      const [next, keys] = await client.scan(cursor, 'MATCH', `${keyPrefix}:*`, 'COUNT', 1000);
      if (keys.length > 0) await client.del(...keys);
      cursor = next;
    } while (cursor !== '0');
  } finally {
    await client.quit();
  }
}

/** A redis:// URL on a local port nothing listens on (bound, then released). */
export async function closedRedisUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return `redis://127.0.0.1:${address.port}`;
}
