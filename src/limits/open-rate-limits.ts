import { RateLimiterMemory, RateLimiterRedis } from 'rate-limiter-flexible';
import type { Limit, RateLimitsConfig } from '../config.js';
import { LimiterCounter } from './limiter-counter.js';
import { type RateCounter, type RateLimits, unlimited } from './rate-counter.js';
import {
  closeRedisClient,
  createRedisClient,
  type StoreLogger,
  throttledWarning,
  untilReady,
} from './redis-client.js';

/** How long start-up waits for Redis before going on without it. */
const CONNECT_WAIT_MS = 3000;

type CounterName =
  | 'loginFailures'
  | 'loginIp'
  | 'validateIp'
  | 'registerIp'
  | 'emailResend'
  | 'passwordForgotEmail'
  | 'passwordForgotIp';

/** Each counter's part of the store key (stable: renaming one would reset its counts on deploy). */
const KEY_NAMES: Record<CounterName, string> = {
  loginFailures: 'login-failures',
  loginIp: 'login-ip',
  validateIp: 'validate-ip',
  registerIp: 'register-ip',
  emailResend: 'email-resend',
  passwordForgotEmail: 'password-forgot-email',
  passwordForgotIp: 'password-forgot-ip',
};

function memoryLimiter(keyPrefix: string, limit: Limit): RateLimiterMemory {
  return new RateLimiterMemory({ keyPrefix, points: limit.points, duration: limit.windowSeconds });
}

/**
 * Builds every counter once, on the configured store: Redis when REDIS_URL is set (one count shared by every
 * instance behind the load balancer), this process's memory otherwise (zero setup), nothing when switched off.
 */
export function openRateLimits(
  config: RateLimitsConfig,
  redisUrl: string | undefined,
  logger: StoreLogger,
): RateLimits {
  if (!config.enabled) {
    return {
      loginFailures: unlimited,
      loginIp: unlimited,
      validateIp: unlimited,
      registerIp: unlimited,
      emailResend: unlimited,
      passwordForgotEmail: unlimited,
      passwordForgotIp: unlimited,
      ready: async () => {},
      close: async () => {},
    };
  }
  const client = redisUrl
    ? createRedisClient(redisUrl, throttledWarning(logger, 'rate limits: Redis connection failed'))
    : undefined;
  const report = throttledWarning(logger, 'rate limits: Redis unavailable, counting in this process');
  const counter = (name: CounterName): RateCounter => {
    const keyPrefix = `${config.keyPrefix}:${KEY_NAMES[name]}`;
    const limit = config[name];
    if (!client) return new LimiterCounter(memoryLimiter(keyPrefix, limit));
    const store = new RateLimiterRedis({
      storeClient: client,
      // Fail at once while disconnected rather than wait for a reconnect.
      rejectIfRedisNotReady: true,
      keyPrefix,
      points: limit.points,
      duration: limit.windowSeconds,
    });
    return new LimiterCounter(store, { limiter: memoryLimiter(keyPrefix, limit), report });
  };
  return {
    loginFailures: counter('loginFailures'),
    loginIp: counter('loginIp'),
    validateIp: counter('validateIp'),
    registerIp: counter('registerIp'),
    emailResend: counter('emailResend'),
    passwordForgotEmail: counter('passwordForgotEmail'),
    passwordForgotIp: counter('passwordForgotIp'),
    ready: async () => {
      if (client) await untilReady(client, CONNECT_WAIT_MS);
    },
    close: async () => {
      if (client) await closeRedisClient(client);
    },
  };
}
