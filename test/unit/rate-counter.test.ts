import { describe, expect, it, vi } from 'vitest';
import { InvalidCredentialsError, ServiceUnavailableError, TooManyRequestsError } from '../../src/errors.js';
import { openRateLimits } from '../../src/limits/open-rate-limits.js';
import { attemptKey, throttledAttempt, unlimited } from '../../src/limits/rate-counter.js';
import { closedRedisUrl } from '../helpers/redis.js';

const config = {
  enabled: true,
  keyPrefix: 'unit:rl',
  loginFailures: { points: 2, windowSeconds: 60 },
  loginIp: { points: 2, windowSeconds: 60 },
  validateIp: { points: 2, windowSeconds: 60 },
  registerIp: { points: 2, windowSeconds: 60 },
  redisCommandTimeoutMs: 100,
  imageUpload: { points: 2, windowSeconds: 60 },
  loginAccount: { points: 2, windowSeconds: 60 },
  emailResend: { points: 2, windowSeconds: 60 },
  passwordForgotEmail: { points: 2, windowSeconds: 60 },
  passwordForgotIp: { points: 2, windowSeconds: 60 },
  emailCodeEmail: { points: 2, windowSeconds: 60 },
  emailCodeIp: { points: 2, windowSeconds: 60 },
  dataExport: { points: 1, windowSeconds: 60 },
  mailAddress: { points: 5, windowSeconds: 3600 },
  mailAlerts: { points: 3, windowSeconds: 3600 },
  identityVerification: { points: 10, windowSeconds: 3600 },
  introspection: { points: 6000, windowSeconds: 60 },
  smsNumberHour: { points: 3, windowSeconds: 3600 },
  smsNumberDay: { points: 10, windowSeconds: 86400 },
  smsIp: { points: 10, windowSeconds: 3600 },
  smsPrefix: { points: 30, windowSeconds: 3600 },
  smsDaily: { points: 1000, windowSeconds: 86400 },
};
const silent = { warn: () => {} };

function retryAfterOf(promise: Promise<unknown>): Promise<number> {
  return promise.then(
    () => {
      throw new Error('expected a TooManyRequestsError');
    },
    (error: unknown) => {
      if (!(error instanceof TooManyRequestsError)) throw error;
      return error.retryAfterSeconds;
    },
  );
}

describe('throttledAttempt', () => {
  const failedLogin = (error: unknown) => error instanceof InvalidCredentialsError;
  const wrongPassword = async () => {
    throw new InvalidCredentialsError();
  };

  it('counts failures, refuses once over the limit, and a success starts afresh', async () => {
    const { loginFailures: counter } = openRateLimits(config, undefined, silent);
    await expect(throttledAttempt(counter, 'k', wrongPassword, failedLogin)).rejects.toThrow(
      InvalidCredentialsError,
    );
    await expect(throttledAttempt(counter, 'k', async () => 'signed in', failedLogin)).resolves.toBe(
      'signed in',
    );
    for (let i = 0; i < 2; i++) {
      await expect(throttledAttempt(counter, 'k', wrongPassword, failedLogin)).rejects.toThrow(
        InvalidCredentialsError,
      );
    }
    const attempt = vi.fn(async () => 'signed in');
    const retryAfter = await retryAfterOf(throttledAttempt(counter, 'k', attempt, failedLogin));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    // Refused before the attempt runs: no password is hashed once the key is over its limit.
    expect(attempt).not.toHaveBeenCalled();
  });

  it('gives the hit back when the attempt fails for a reason that is not the client’s', async () => {
    const { loginFailures: counter } = openRateLimits(config, undefined, silent);
    const outage = async () => {
      throw new ServiceUnavailableError();
    };
    for (let i = 0; i < 5; i++) {
      await expect(throttledAttempt(counter, 'k', outage, failedLogin)).rejects.toThrow(
        ServiceUnavailableError,
      );
    }
    await expect(throttledAttempt(counter, 'k', async () => 'signed in', failedLogin)).resolves.toBe(
      'signed in',
    );
  });
});

describe('attemptKey', () => {
  it('is opaque (no email in the store) and differs by identifier and by IP', () => {
    const key = attemptKey('email:someone@example.com', '10.0.0.1');
    expect(key).not.toContain('someone');
    expect(key).not.toBe(attemptKey('email:someone@example.com', '10.0.0.2'));
    expect(key).not.toBe(attemptKey('email:other@example.com', '10.0.0.1'));
  });
});

describe('openRateLimits with Redis unreachable', () => {
  it('counts in this process, warns (once per interval, not per hit), and closes', async () => {
    const warn = vi.fn();
    const limits = openRateLimits(config, await closedRedisUrl(), { warn });
    await limits.ready();
    await expect(limits.validateIp.consume('10.0.0.1')).resolves.toBeUndefined();
    await expect(limits.validateIp.consume('10.0.0.1')).resolves.toBeUndefined();
    await expect(limits.validateIp.consume('10.0.0.1')).rejects.toThrow(TooManyRequestsError);
    // Counted per key: another address still has its two points.
    await expect(limits.validateIp.consume('10.0.0.2')).resolves.toBeUndefined();
    const messages = warn.mock.calls.map(([, message]) => message);
    expect(messages).toContain('rate limits: Redis unavailable, counting in this process');
    expect(
      messages.filter((m) => m === 'rate limits: Redis unavailable, counting in this process'),
    ).toHaveLength(1);
    await limits.close();
  });

  it('is a no-op when switched off: no hit is refused, and Redis is never tried', async () => {
    const warn = vi.fn();
    const limits = openRateLimits({ ...config, enabled: false }, await closedRedisUrl(), { warn });
    await limits.ready();
    // Five hits on a counter of two points: every one passes.
    for (let i = 0; i < 5; i++) await expect(limits.registerIp.consume('10.0.0.1')).resolves.toBeUndefined();
    expect(limits.registerIp).toBe(unlimited);
    expect(warn).not.toHaveBeenCalled();
    await limits.close();
  });
});
