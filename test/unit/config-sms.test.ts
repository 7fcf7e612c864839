import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { configError } from '../helpers/config.js';

const SOLAPI = { SOLAPI_API_KEY: 'NCSKEY', SOLAPI_API_SECRET: 'secret', SOLAPI_SENDER: '0212345678' };

describe('SMS configuration', () => {
  it('has no gateway, codes to nobody, Korea only by default', () => {
    expect(loadConfig({}).sms).toEqual({
      solapi: undefined,
      logCodes: false,
      allowedCountries: ['KR'],
      retry: { maxAttempts: 4, baseDelayMs: 5000, intervalMs: 10_000 },
    });
  });

  it('logs codes in development, by NODE_ENV or ENV', () => {
    expect(loadConfig({ NODE_ENV: 'development' }).sms.logCodes).toBe(true);
    expect(loadConfig({ ENV: 'Development' }).sms.logCodes).toBe(true);
    expect(loadConfig({ NODE_ENV: 'production' }).sms.logCodes).toBe(false);
  });

  it('reads SOLAPI, its address and timeout, and the allowed countries', () => {
    const { sms } = loadConfig({
      ...SOLAPI,
      SOLAPI_API_URL: 'http://127.0.0.1:9/',
      SOLAPI_TIMEOUT: '3s',
      SMS_ALLOWED_COUNTRIES: 'kr, jp,KR',
    });
    expect(sms.solapi).toEqual({
      apiKey: 'NCSKEY',
      apiSecret: 'secret',
      sender: '0212345678',
      apiUrl: 'http://127.0.0.1:9',
      timeoutMs: 3000,
    });
    expect(sms.allowedCountries).toEqual(['KR', 'JP']);
    expect(loadConfig(SOLAPI).sms.solapi?.apiUrl).toBe('https://api.solapi.com');
  });

  it('refuses SOLAPI half set, naming the missing variable and never the secret', () => {
    const error = configError({ SOLAPI_API_KEY: 'NCSKEY', SOLAPI_API_SECRET: 'very-secret' });
    expect(error.variable).toBe('SOLAPI_SENDER');
    expect(error.message).not.toContain('very-secret');
    expect(configError({ SOLAPI_SENDER: '0212345678' }).variable).toBe('SOLAPI_API_KEY');
  });

  it('refuses a sender that is not digits, and an unknown country', () => {
    expect(configError({ ...SOLAPI, SOLAPI_SENDER: '02-123-4567' }).variable).toBe('SOLAPI_SENDER');
    expect(configError({ SMS_ALLOWED_COUNTRIES: 'KR,XX' }).variable).toBe('SMS_ALLOWED_COUNTRIES');
    expect(configError({ SMS_DAILY_LIMIT: '0' }).variable).toBe('SMS_DAILY_LIMIT');
  });
});
