import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { configError } from '../helpers/config.js';

describe('timeout configuration', () => {
  it('bounds every wait by default', () => {
    const config = loadConfig({});
    expect(config.http).toEqual({
      requestTimeoutMs: 30_000,
      headersTimeoutMs: 10_000,
      keepAliveTimeoutMs: 5_000,
    });
    expect(config.database).toEqual({
      acquireTimeoutMs: 5_000,
      statementTimeoutMs: 10_000,
      lockTimeoutMs: 5_000,
      idleInTransactionTimeoutMs: 30_000,
      outcomeCheckTimeoutMs: 3_000,
    });
    expect(config.rateLimits.redisCommandTimeoutMs).toBe(100);
  });

  it('reads each variable', () => {
    const config = loadConfig({
      REQUEST_TIMEOUT_MS: '2000',
      HEADERS_TIMEOUT_MS: '1500',
      KEEP_ALIVE_TIMEOUT_MS: '700',
      DATABASE_ACQUIRE_TIMEOUT_MS: '250',
      DATABASE_STATEMENT_TIMEOUT_MS: '3000',
      DATABASE_LOCK_TIMEOUT_MS: '400',
      DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS: '9000',
      DATABASE_OUTCOME_CHECK_TIMEOUT_MS: '1200',
      REDIS_COMMAND_TIMEOUT_MS: '20',
      S3_BUCKET: 'profile-media',
      S3_TIMEOUT_MS: '1500',
    });
    expect(config.http).toEqual({ requestTimeoutMs: 2000, headersTimeoutMs: 1500, keepAliveTimeoutMs: 700 });
    expect(config.database).toEqual({
      acquireTimeoutMs: 250,
      statementTimeoutMs: 3000,
      lockTimeoutMs: 400,
      idleInTransactionTimeoutMs: 9000,
      outcomeCheckTimeoutMs: 1200,
    });
    expect(config.rateLimits.redisCommandTimeoutMs).toBe(20);
    expect(config.media).toMatchObject({ driver: 's3', timeoutMs: 1500 });
  });

  it('keeps the headers timeout within a short request timeout by default', () => {
    expect(loadConfig({ REQUEST_TIMEOUT_MS: '1000' }).http.headersTimeoutMs).toBe(1000);
  });

  it.each([
    [{ REQUEST_TIMEOUT_MS: '0' }, 'REQUEST_TIMEOUT_MS'],
    [{ REQUEST_TIMEOUT_MS: 'soon' }, 'REQUEST_TIMEOUT_MS'],
    [{ REQUEST_TIMEOUT_MS: '5000', HEADERS_TIMEOUT_MS: '6000' }, 'HEADERS_TIMEOUT_MS'],
    [{ DATABASE_STATEMENT_TIMEOUT_MS: '0' }, 'DATABASE_STATEMENT_TIMEOUT_MS'],
    [{ REDIS_COMMAND_TIMEOUT_MS: '-5' }, 'REDIS_COMMAND_TIMEOUT_MS'],
  ])('refuses %o, naming %s', (env, variable) => {
    expect(configError(env).variable).toBe(variable);
  });
});
