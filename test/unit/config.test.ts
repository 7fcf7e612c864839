import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { configError } from '../helpers/config.js';

describe('loadConfig', () => {
  // The core settings; media, providers and rate limits have unit tests of their own.
  it('gives the documented defaults for an empty environment', () => {
    expect(loadConfig({})).toMatchObject({
      port: 8080,
      host: '127.0.0.1',
      dataDir: path.resolve('./data'),
      databaseUrl: undefined,
      databasePoolMax: 10,
      apiVersions: ['dev', 'v1'],
      logLevel: 'info',
      bodyLimitBytes: 1024 ** 2,
      fileSizeLimitBytes: 10 * 1024 ** 2,
      imageMaxPixels: 40_000_000,
      argon2: { memoryKib: 19_456, timeCost: 2, parallelism: 1 },
      migrateOnStart: true,
      tokenTtlDays: undefined,
      reauthWindowMs: 10 * 60_000,
      trustProxy: false,
      shutdownTimeoutMs: 10_000,
    });
  });

  it('takes a re-authentication window of 30 seconds to an hour', () => {
    expect(loadConfig({ REAUTH_WINDOW: '5m' }).reauthWindowMs).toBe(300_000);
    expect(loadConfig({ REAUTH_WINDOW: '1h' }).reauthWindowMs).toBe(3_600_000);
    for (const value of ['10s', '2h', '0', 'forever']) {
      expect(configError({ REAUTH_WINDOW: value }).message, value).toMatch(
        /^Invalid configuration: REAUTH_WINDOW must be a duration/,
      );
    }
  });

  it('treats empty and blank values as unset, as a .env line `NAME=` means', () => {
    const config = loadConfig({ PORT: '', LOG_LEVEL: '   ', DATABASE_URL: '', TOKEN_TTL_DAYS: '' });
    expect(config.port).toBe(8080);
    expect(config.logLevel).toBe('info');
    expect(config.databaseUrl).toBeUndefined();
    expect(config.tokenTtlDays).toBeUndefined();
  });

  it('reads every variable', () => {
    const config = loadConfig({
      PORT: '0',
      HOST: '0.0.0.0',
      DATA_DIR: '/var/lib/accounts',
      DATABASE_URL: 'postgresql://app:secret@db.internal:5432/accounts',
      DATABASE_POOL_MAX: '25',
      API_VERSIONS: 'v2, v1 ,v2',
      LOG_LEVEL: 'WARN',
      BODY_LIMIT: '512kb',
      FILE_SIZE_LIMIT: '2 MB',
      IMAGE_MAX_PIXELS: '1000',
      ARGON2_MEMORY_KIB: '65536',
      ARGON2_TIME_COST: '3',
      ARGON2_PARALLELISM: '4',
      MIGRATE_ON_START: 'off',
      TOKEN_TTL_DAYS: '30',
      TRUST_PROXY: '10.0.0.0/8, 127.0.0.1',
      SHUTDOWN_TIMEOUT_MS: '0',
    });
    expect(config).toMatchObject({
      port: 0,
      host: '0.0.0.0',
      dataDir: '/var/lib/accounts',
      databaseUrl: 'postgresql://app:secret@db.internal:5432/accounts',
      databasePoolMax: 25,
      apiVersions: ['v2', 'v1'],
      logLevel: 'warn',
      bodyLimitBytes: 512 * 1024,
      fileSizeLimitBytes: 2 * 1024 ** 2,
      imageMaxPixels: 1000,
      argon2: { memoryKib: 65_536, timeCost: 3, parallelism: 4 },
      migrateOnStart: false,
      tokenTtlDays: 30,
      trustProxy: ['10.0.0.0/8', '127.0.0.1'],
      shutdownTimeoutMs: 0,
    });
  });

  it('resolves a relative DATA_DIR against the working directory', () => {
    expect(loadConfig({ DATA_DIR: 'state' }).dataDir).toBe(path.resolve('state'));
  });

  it.each([
    ['1048576', 1_048_576],
    ['1b', 1],
    ['64KB', 64 * 1024],
    ['3mb', 3 * 1024 ** 2],
    ['1 gb', 1024 ** 3],
    ['10k', 10 * 1024],
    ['2M', 2 * 1024 ** 2],
  ])('reads the size %s as %d bytes', (value, bytes) => {
    expect(loadConfig({ BODY_LIMIT: value }).bodyLimitBytes).toBe(bytes);
  });

  it.each(['0', '0mb', '1.5mb', '-1', 'lots', '1tb', 'mb', '10kib'])('refuses the size %j', (value) => {
    const error = configError({ FILE_SIZE_LIMIT: value });
    expect(error.variable).toBe('FILE_SIZE_LIMIT');
    expect(error.message).toBe(
      `Invalid configuration: FILE_SIZE_LIMIT must be a size such as 1048576, 512kb or 1mb (got "${value}")`,
    );
  });

  it.each([
    ['PORT', '65536', 'must be a whole number from 0 to 65535 (got "65536")'],
    ['PORT', '80.5', 'must be a whole number from 0 to 65535 (got "80.5")'],
    ['PORT', '-1', 'must be a whole number from 0 to 65535 (got "-1")'],
    ['PORT', 'http', 'must be a whole number from 0 to 65535 (got "http")'],
    ['DATABASE_POOL_MAX', '0', 'must be a whole number from 1 to 1000 (got "0")'],
    ['IMAGE_MAX_PIXELS', '0', 'must be a whole number from 1 to 1000000000 (got "0")'],
    ['ARGON2_MEMORY_KIB', '512', 'must be a whole number from 1024 to 4194304 (got "512")'],
    ['ARGON2_TIME_COST', '0', 'must be a whole number from 1 to 100 (got "0")'],
    ['ARGON2_PARALLELISM', '17', 'must be a whole number from 1 to 16 (got "17")'],
    ['TOKEN_TTL_DAYS', '0', 'must be a whole number from 1 to 36500 (got "0")'],
    ['SHUTDOWN_TIMEOUT_MS', '600001', 'must be a whole number from 0 to 600000 (got "600001")'],
    ['MIGRATE_ON_START', 'maybe', 'must be true or false (got "maybe")'],
    [
      'TRUST_PROXY',
      'true',
      'must be false or the addresses/CIDRs of the proxies in front of the service (got "true"); ' +
        'trusting every X-Forwarded-For would let a client choose its own IP',
    ],
    ['LOG_LEVEL', 'verbose', 'must be one of fatal, error, warn, info, debug, trace, silent (got "verbose")'],
    ['API_VERSIONS', 'v1,v 2', 'must be a comma-separated list of path segments (got "v1,v 2")'],
    ['API_VERSIONS', 'v1/v2', 'must be a comma-separated list of path segments (got "v1/v2")'],
    ['API_VERSIONS', ',,', 'must be a comma-separated list of path segments (got ",,")'],
    ['DATABASE_URL', 'mysql://root@localhost/db', 'must be a postgres:// or postgresql:// URL'],
  ])('names %s when it is %j', (variable, value, detail) => {
    const error = configError({ [variable]: value });
    expect(error.variable).toBe(variable);
    expect(error.name).toBe('ConfigError');
    expect(error.message).toBe(`Invalid configuration: ${variable} ${detail}`);
  });

  it('never echoes a DATABASE_URL it refuses, since it may hold a password', () => {
    const error = configError({ DATABASE_URL: 'mysql://root:hunter2-secret@db/accounts' });
    expect(error.message).not.toContain('hunter2-secret');
  });

  it.each([
    ['1', true],
    ['TRUE', true],
    ['on', true],
    ['yes', true],
    ['0', false],
    ['False', false],
    ['off', false],
    ['no', false],
  ])('reads the boolean %j as %s', (value, expected) => {
    expect(loadConfig({ MIGRATE_ON_START: value }).migrateOnStart).toBe(expected);
  });

  it.each([
    ['false', false],
    ['0', false],
    ['192.168.0.1', ['192.168.0.1']],
    ['10.0.0.0/8,::1', ['10.0.0.0/8', '::1']],
  ])('reads TRUST_PROXY %j as %j', (value, expected) => {
    expect(loadConfig({ TRUST_PROXY: value }).trustProxy).toEqual(expected);
  });

  it.each(['yes', 'on', 'everyone', '300.1.1.1', '2'])('refuses TRUST_PROXY %j', (value) => {
    expect(configError({ TRUST_PROXY: value }).variable).toBe('TRUST_PROXY');
  });

  it('reads process.env when given no environment', () => {
    const before = process.env.API_VERSIONS;
    process.env.API_VERSIONS = 'from-process-env';
    try {
      expect(loadConfig().apiVersions).toEqual(['from-process-env']);
    } finally {
      if (before === undefined) delete process.env.API_VERSIONS;
      else process.env.API_VERSIONS = before;
    }
  });
});
