import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { configError } from '../helpers/config.js';

describe('rate-limit configuration', () => {
  it('is on by default, in this process, with the documented limits', () => {
    const config = loadConfig({});
    expect(config.redisUrl).toBeUndefined();
    expect(config.rateLimits).toEqual({
      enabled: true,
      keyPrefix: 'accounts:rl',
      loginFailures: { points: 10, windowSeconds: 900 },
      loginIp: { points: 100, windowSeconds: 900 },
      validateIp: { points: 60, windowSeconds: 60 },
      registerIp: { points: 20, windowSeconds: 3600 },
      redisCommandTimeoutMs: 100,
      imageUpload: { points: 20, windowSeconds: 3600 },
      loginAccount: { points: 100, windowSeconds: 3600 },
      emailResend: { points: 3, windowSeconds: 3600 },
      passwordForgotEmail: { points: 3, windowSeconds: 3600 },
      passwordForgotIp: { points: 20, windowSeconds: 3600 },
      emailCodeEmail: { points: 5, windowSeconds: 3600 },
      emailCodeIp: { points: 20, windowSeconds: 3600 },
      dataExport: { points: 1, windowSeconds: 3600 },
      mailAddress: { points: 5, windowSeconds: 3600 },
      mailAlerts: { points: 3, windowSeconds: 3600 },
      identityVerification: { points: 10, windowSeconds: 3600 },
      introspection: { points: 6000, windowSeconds: 60 },
      smsNumberHour: { points: 3, windowSeconds: 3600 },
      smsNumberDay: { points: 10, windowSeconds: 86_400 },
      smsIp: { points: 10, windowSeconds: 3600 },
      smsPrefix: { points: 30, windowSeconds: 3600 },
      smsDaily: { points: 1000, windowSeconds: 86_400 },
    });
  });

  it('reads limits as N per a window in seconds, minutes or hours', () => {
    const { rateLimits } = loadConfig({
      RATE_LIMIT_ENABLED: 'off',
      RATE_LIMIT_KEY_PREFIX: 'eu-1:rl',
      RATE_LIMIT_LOGIN_FAILURES: '5/30s',
      RATE_LIMIT_LOGIN_IP: '200 / 2H',
      RATE_LIMIT_VALIDATE_IP: '30/m',
      RATE_LIMIT_REGISTER_IP: '1/24h',
      RATE_LIMIT_IMAGE_UPLOAD: '5/10m',
      RATE_LIMIT_LOGIN_ACCOUNT: '50/2h',
      RATE_LIMIT_EMAIL_RESEND: '1/10m',
      RATE_LIMIT_PASSWORD_FORGOT_EMAIL: '2/1h',
      RATE_LIMIT_PASSWORD_FORGOT_IP: '9/1h',
      RATE_LIMIT_EMAIL_CODE_EMAIL: '4/1h',
      RATE_LIMIT_EMAIL_CODE_IP: '8/1h',
      RATE_LIMIT_MAIL_ADDRESS: '3/30m',
      RATE_LIMIT_MAIL_ALERTS: '10/2h',
      RATE_LIMIT_INTROSPECTION: '100/1m',
      RATE_LIMIT_SMS_NUMBER_HOUR: '2/30m',
      RATE_LIMIT_SMS_NUMBER_DAY: '5/12h',
      RATE_LIMIT_SMS_IP: '4/1h',
      RATE_LIMIT_SMS_PREFIX: '6/1h',
      SMS_DAILY_LIMIT: '250',
    });
    expect(rateLimits).toEqual({
      enabled: false,
      keyPrefix: 'eu-1:rl',
      loginFailures: { points: 5, windowSeconds: 30 },
      loginIp: { points: 200, windowSeconds: 7200 },
      validateIp: { points: 30, windowSeconds: 60 },
      registerIp: { points: 1, windowSeconds: 86_400 },
      redisCommandTimeoutMs: 100,
      imageUpload: { points: 5, windowSeconds: 600 },
      loginAccount: { points: 50, windowSeconds: 7200 },
      emailResend: { points: 1, windowSeconds: 600 },
      passwordForgotEmail: { points: 2, windowSeconds: 3600 },
      passwordForgotIp: { points: 9, windowSeconds: 3600 },
      emailCodeEmail: { points: 4, windowSeconds: 3600 },
      emailCodeIp: { points: 8, windowSeconds: 3600 },
      dataExport: { points: 1, windowSeconds: 3600 },
      mailAddress: { points: 3, windowSeconds: 1800 },
      mailAlerts: { points: 10, windowSeconds: 7200 },
      identityVerification: { points: 10, windowSeconds: 3600 },
      introspection: { points: 100, windowSeconds: 60 },
      smsNumberHour: { points: 2, windowSeconds: 1800 },
      smsNumberDay: { points: 5, windowSeconds: 43_200 },
      smsIp: { points: 4, windowSeconds: 3600 },
      smsPrefix: { points: 6, windowSeconds: 3600 },
      smsDaily: { points: 250, windowSeconds: 86_400 },
    });
  });

  it.each(['10', '10/15', '0/1m', '10/0m', '10/25h', '-1/1m', 'ten/1m', '10/1d', '1.5/1m'])(
    'refuses the limit "%s", naming the variable',
    (value) => {
      const error = configError({ RATE_LIMIT_VALIDATE_IP: value });
      expect(error.variable).toBe('RATE_LIMIT_VALIDATE_IP');
      expect(error.message).toContain('such as 10/15m');
    },
  );

  it('refuses a bad switch and a bad key prefix', () => {
    expect(configError({ RATE_LIMIT_ENABLED: 'maybe' }).variable).toBe('RATE_LIMIT_ENABLED');
    expect(configError({ RATE_LIMIT_KEY_PREFIX: 'has space' }).variable).toBe('RATE_LIMIT_KEY_PREFIX');
  });

  it('takes a redis:// or rediss:// URL and never echoes a bad one (it may hold a password)', () => {
    expect(loadConfig({ REDIS_URL: 'redis://127.0.0.1:6379/2' }).redisUrl).toBe('redis://127.0.0.1:6379/2');
    expect(loadConfig({ REDIS_URL: 'rediss://:pw@cache.internal:6380' }).redisUrl).toBe(
      'rediss://:pw@cache.internal:6380',
    );
    const error = configError({ REDIS_URL: 'http://:secret-pw@cache' });
    expect(error.variable).toBe('REDIS_URL');
    expect(error.message).not.toContain('secret-pw');
  });
});
