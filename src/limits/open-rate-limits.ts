import { RateLimiterMemory, RateLimiterRedis } from 'rate-limiter-flexible';
import type { Limit, RateLimitsConfig } from '../config.js';
import { CircuitBreaker } from './circuit-breaker.js';
import { LimiterCounter } from './limiter-counter.js';
import { observedCounter, type RateLimitObserver } from './observed-counter.js';
import { type RateCounter, type RateLimits, unlimitedRateLimits } from './rate-counter.js';
import {
  closeRedisClient,
  createRedisClient,
  type StoreLogger,
  throttledWarning,
  untilReady,
} from './redis-client.js';

/** How long start-up waits for Redis before going on without it. */
const CONNECT_WAIT_MS = 3000;

/**
 * How long the counters skip Redis after it failed. Long enough that a frozen Redis adds one command timeout
 * per 10 s to the whole instance, short enough that shared counting resumes soon after Redis is back.
 */
const REDIS_COOL_DOWN_MS = 10_000;

type CounterName =
  | 'loginFailures'
  | 'loginIp'
  | 'validateIp'
  | 'registerIp'
  | 'imageUpload'
  | 'loginAccount'
  | 'emailResend'
  | 'passwordForgotEmail'
  | 'passwordForgotIp'
  | 'emailCodeEmail'
  | 'emailCodeIp'
  | 'dataExport'
  | 'mailAddress'
  | 'mailAlerts'
  | 'identityVerification'
  | 'introspection'
  | 'smsNumberHour'
  | 'smsNumberDay'
  | 'smsIp'
  | 'smsPrefix'
  | 'smsDaily';

/** Each counter's part of the store key (stable: renaming one would reset its counts on deploy). */
const KEY_NAMES: Record<CounterName, string> = {
  loginFailures: 'login-failures',
  loginIp: 'login-ip',
  validateIp: 'validate-ip',
  registerIp: 'register-ip',
  imageUpload: 'image-upload',
  loginAccount: 'login-account',
  emailResend: 'email-resend',
  passwordForgotEmail: 'password-forgot-email',
  passwordForgotIp: 'password-forgot-ip',
  emailCodeEmail: 'email-code-email',
  emailCodeIp: 'email-code-ip',
  dataExport: 'data-export',
  mailAddress: 'mail-address',
  mailAlerts: 'mail-alerts',
  identityVerification: 'identity-verification',
  introspection: 'introspection',
  smsNumberHour: 'sms-number-hour',
  smsNumberDay: 'sms-number-day',
  smsIp: 'sms-ip',
  smsPrefix: 'sms-prefix',
  smsDaily: 'sms-daily',
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
  observer?: RateLimitObserver,
): RateLimits {
  if (!config.enabled) return unlimitedRateLimits();
  const client = redisUrl
    ? createRedisClient(
        redisUrl,
        config.redisCommandTimeoutMs,
        throttledWarning(logger, 'rate limits: Redis connection failed'),
      )
    : undefined;
  const breaker = new CircuitBreaker(REDIS_COOL_DOWN_MS);
  const report = throttledWarning(logger, 'rate limits: Redis unavailable, counting in this process');
  const counter = (name: CounterName): RateCounter => {
    const store = storeCounter(name);
    return observer ? observedCounter(store, KEY_NAMES[name], observer) : store;
  };
  const storeCounter = (name: CounterName): RateCounter => {
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
    return new LimiterCounter(store, { limiter: memoryLimiter(keyPrefix, limit), report, breaker });
  };
  return {
    loginFailures: counter('loginFailures'),
    loginIp: counter('loginIp'),
    validateIp: counter('validateIp'),
    registerIp: counter('registerIp'),
    imageUpload: counter('imageUpload'),
    loginAccount: counter('loginAccount'),
    emailResend: counter('emailResend'),
    passwordForgotEmail: counter('passwordForgotEmail'),
    passwordForgotIp: counter('passwordForgotIp'),
    emailCodeEmail: counter('emailCodeEmail'),
    emailCodeIp: counter('emailCodeIp'),
    dataExport: counter('dataExport'),
    mailAddress: counter('mailAddress'),
    mailAlerts: counter('mailAlerts'),
    identityVerification: counter('identityVerification'),
    introspection: counter('introspection'),
    smsNumberHour: counter('smsNumberHour'),
    smsNumberDay: counter('smsNumberDay'),
    smsIp: counter('smsIp'),
    smsPrefix: counter('smsPrefix'),
    smsDaily: counter('smsDaily'),
    ready: async () => {
      if (client) await untilReady(client, CONNECT_WAIT_MS);
    },
    close: async () => {
      if (client) await closeRedisClient(client);
    },
  };
}
