import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { configError } from '../helpers/config.js';

describe('metrics configuration', () => {
  it('serves /metrics on the main port without a token by default', () => {
    expect(loadConfig({}).metrics).toEqual({ port: undefined, token: undefined });
  });

  it('takes METRICS_PORT and METRICS_TOKEN', () => {
    expect(loadConfig({ METRICS_PORT: '9464', METRICS_TOKEN: 'a-long-scrape-token' }).metrics).toEqual({
      port: 9464,
      token: 'a-long-scrape-token',
    });
  });

  it('refuses a bad port, and a short token without echoing it', () => {
    expect(configError({ METRICS_PORT: '70000' }).variable).toBe('METRICS_PORT');
    const error = configError({ METRICS_TOKEN: 'short-secret' });
    expect(error.variable).toBe('METRICS_TOKEN');
    expect(error.message).not.toContain('short-secret');
    expect(configError({ METRICS_TOKEN: 'has a space in the middle' }).variable).toBe('METRICS_TOKEN');
  });
});

describe('CORS_ORIGINS', () => {
  it('allows no origin by default', () => {
    expect(loadConfig({}).corsOrigins).toEqual([]);
  });

  it('takes a comma-separated list of origins, once each', () => {
    expect(
      loadConfig({ CORS_ORIGINS: 'https://app.example.com, http://localhost:5173,https://app.example.com' })
        .corsOrigins,
    ).toEqual(['https://app.example.com', 'http://localhost:5173']);
  });

  it.each([
    '*',
    'app.example.com',
    'https://app.example.com/',
    'https://app.example.com/path',
    'ftp://files.example.com',
    'https://APP.example.com',
  ])('refuses %s, which is not an origin as a browser sends it', (value) => {
    expect(configError({ CORS_ORIGINS: value }).variable).toBe('CORS_ORIGINS');
  });
});

describe('BANNER_LINK_SCHEMES', () => {
  it('allows no app scheme by default, and reads a list in any case', () => {
    expect(loadConfig({}).bannerLinkSchemes).toEqual([]);
    expect(loadConfig({ BANNER_LINK_SCHEMES: 'myapp, MyApp-Beta:,' }).bannerLinkSchemes).toEqual([
      'myapp',
      'myapp-beta',
    ]);
  });

  it.each(['javascript', 'Data', 'vbscript,myapp', 'file', 'my app'])('refuses %j', (value) => {
    expect(() => loadConfig({ BANNER_LINK_SCHEMES: value })).toThrow(
      /^Invalid configuration: BANNER_LINK_SCHEMES /,
    );
  });
});
