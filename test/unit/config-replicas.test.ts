import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { configError } from '../helpers/config.js';

const PRIMARY = 'postgres://app:secret@db-primary:5432/accounts';

describe('read replica configuration', () => {
  it('reads nothing from replicas by default', () => {
    expect(loadConfig({ DATABASE_URL: PRIMARY }).replicas).toEqual({ urls: [], maxLagMs: 1_000 });
  });

  it('reads the comma list and the lag limit', () => {
    const config = loadConfig({
      DATABASE_URL: PRIMARY,
      DATABASE_REPLICA_URLS: ' postgres://app:s@db-r1/accounts , postgresql://app:s@db-r2:6432/accounts,',
      REPLICA_MAX_LAG_MS: '250',
    });
    expect(config.replicas).toEqual({
      urls: ['postgres://app:s@db-r1/accounts', 'postgresql://app:s@db-r2:6432/accounts'],
      maxLagMs: 250,
    });
  });

  it('refuses replicas without a primary (the embedded database has no standby)', () => {
    const error = configError({ DATABASE_REPLICA_URLS: 'postgres://app:s@db-r1/accounts' });
    expect(error.message).toMatch(/^Invalid configuration: DATABASE_REPLICA_URLS needs DATABASE_URL/);
  });

  it('refuses an entry that is not a postgres URL, without echoing a password', () => {
    const error = configError({
      DATABASE_URL: PRIMARY,
      DATABASE_REPLICA_URLS: 'postgres://app:s@db-r1/accounts,mysql://app:hunter2@db-r2/accounts',
    });
    expect(error.message).toMatch(
      /DATABASE_REPLICA_URLS must be a comma-separated list of postgres:\/\/ URLs \(entry 2/,
    );
    expect(error.message).not.toContain('hunter2');
  });

  it('bounds the lag limit', () => {
    expect(configError({ REPLICA_MAX_LAG_MS: '0' }).message).toMatch(
      /REPLICA_MAX_LAG_MS must be a whole number/,
    );
  });
});
