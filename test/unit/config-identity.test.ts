import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { configError, TEST_SECRETS_KEY } from '../helpers/config.js';

const PORTONE = {
  PORTONE_API_SECRET: 'portone-secret',
  PORTONE_STORE_ID: 'store-1',
  PORTONE_CHANNEL_KEY: 'channel-key-1',
  SECRETS_KEY: TEST_SECRETS_KEY,
};

describe('identity verification configuration', () => {
  it('is off without PortOne, and keeps one account per person by default', () => {
    expect(loadConfig({}).identity).toEqual({ portone: undefined, oneAccountPerPerson: true });
  });

  it("takes PortOne's three settings, its API at api.portone.io and a 10-second wait by default", () => {
    expect(loadConfig(PORTONE).identity).toEqual({
      portone: {
        apiSecret: 'portone-secret',
        storeId: 'store-1',
        channelKey: 'channel-key-1',
        apiUrl: 'https://api.portone.io',
        timeoutMs: 10_000,
        browserOrigins: ['https://*.portone.io', 'https://*.iamport.co', 'https://*.iamport.kr'],
      },
      oneAccountPerPerson: true,
    });
    const custom = loadConfig({
      ...PORTONE,
      PORTONE_API_URL: 'http://127.0.0.1:9400/',
      PORTONE_TIMEOUT_MS: '2500',
      IDENTITY_ONE_ACCOUNT_PER_PERSON: 'false',
    }).identity;
    expect(custom).toMatchObject({
      portone: { apiUrl: 'http://127.0.0.1:9400', timeoutMs: 2500 },
      oneAccountPerPerson: false,
    });
  });

  it('refuses PortOne half set up, naming the missing variable, and without SECRETS_KEY', () => {
    expect(configError({ ...PORTONE, PORTONE_STORE_ID: '' }).variable).toBe('PORTONE_STORE_ID');
    expect(configError({ PORTONE_CHANNEL_KEY: 'channel-key-1' }).variable).toBe('PORTONE_API_SECRET');
    const missingKey = configError({ ...PORTONE, SECRETS_KEY: '', DATABASE_URL: 'postgres://db/accounts' });
    expect(missingKey.message).toBe(
      'Invalid configuration: SECRETS_KEY must be set when PORTONE_API_SECRET is (the CI is kept as an HMAC ' +
        'under a key derived from it): make one with `openssl rand -hex 32`, the same for every instance',
    );
    // The embedded database keeps its own key in DATA_DIR (made on the first start).
    const embedded = loadConfig({ ...PORTONE, SECRETS_KEY: '', DATA_DIR: '/srv/accounts' });
    expect(embedded.identity.portone?.storeId).toBe('store-1');
    expect(embedded.secondFactor.keyFile).toBe('/srv/accounts/secrets.key');
  });

  it("takes PortOne's browser origins as a list of https origins, and leaves them out without PortOne", () => {
    const origins = loadConfig({
      ...PORTONE,
      PORTONE_BROWSER_ORIGINS:
        ' https://*.portone.io, https://checkout.example-pg.co.kr ,HTTPS://*.PORTONE.IO',
    }).identity.portone?.browserOrigins;
    expect(origins).toEqual(['https://*.portone.io', 'https://checkout.example-pg.co.kr']);
    expect(loadConfig({ PORTONE_BROWSER_ORIGINS: 'https://*.portone.io' }).identity.portone).toBeUndefined();
  });

  it.each([
    'https:',
    'https://*',
    '*',
    "'unsafe-inline'",
    'http://cdn.portone.io',
    'https://cdn.portone.io/v2/',
    'https://cdn.portone.io:8443',
    'https://*.portone.io https://*.iamport.co',
    'https://portone.*',
    ',',
  ])('refuses PORTONE_BROWSER_ORIGINS=%s: origins only, never a wider source', (value) => {
    expect(configError({ ...PORTONE, PORTONE_BROWSER_ORIGINS: value }).variable).toBe(
      'PORTONE_BROWSER_ORIGINS',
    );
  });

  it.each([
    ['PORTONE_API_URL', 'ftp://portone'],
    ['PORTONE_TIMEOUT_MS', '0'],
    ['IDENTITY_ONE_ACCOUNT_PER_PERSON', 'maybe'],
  ])('refuses %s=%s, naming the variable', (variable, value) => {
    expect(configError({ ...PORTONE, [variable]: value }).variable).toBe(variable);
  });
});
