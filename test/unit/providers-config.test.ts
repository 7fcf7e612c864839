import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { configError } from '../helpers/config.js';

function providers(env: Record<string, string>) {
  return loadConfig(env).providers;
}

describe('PROVIDER_* configuration', () => {
  it('knows alpha, beta and gamma, registers with alpha and beta, and configures none by default', () => {
    expect(providers({})).toEqual({
      names: ['alpha', 'beta', 'gamma'],
      registerNames: ['alpha', 'beta'],
      configured: [],
      timeoutMs: 5000,
      jwksCooldownMs: 30_000,
    });
  });

  it('reads a userinfo provider with its defaults', () => {
    expect(providers({ PROVIDER_ALPHA_USERINFO_URL: 'https://alpha.example/me' }).configured).toEqual([
      {
        name: 'alpha',
        kind: 'userinfo',
        userinfoUrl: 'https://alpha.example/me',
        userIdPath: 'id',
        tokeninfoUrl: undefined,
        clientIdPath: 'app_id',
        clientIds: [],
      },
    ]);
  });

  it('reads an id-token provider with several audiences', () => {
    const config = providers({
      PROVIDER_BETA_KIND: 'id-token',
      PROVIDER_BETA_JWKS_URL: 'https://beta.example/jwks',
      PROVIDER_BETA_ISSUER: 'https://beta.example',
      PROVIDER_BETA_AUDIENCE: 'ios-app, android-app',
    });
    expect(config.configured).toEqual([
      {
        name: 'beta',
        kind: 'id-token',
        jwksUrl: 'https://beta.example/jwks',
        issuer: 'https://beta.example',
        audiences: ['ios-app', 'android-app'],
      },
    ]);
  });

  it('treats a provider with a kind but no URL as not configured', () => {
    expect(providers({ PROVIDER_GAMMA_KIND: 'userinfo' }).configured).toEqual([]);
  });

  it.each([
    [{ PROVIDERS: 'alpha,Bad-Name' }, 'PROVIDERS'],
    [{ PROVIDERS: 'email,alpha' }, 'PROVIDERS'],
    [{ PROVIDERS: 'kakao', REGISTER_PROVIDERS: 'alpha' }, 'REGISTER_PROVIDERS'],
    [
      { PROVIDER_ALPHA_KIND: 'magic', PROVIDER_ALPHA_USERINFO_URL: 'https://a.example' },
      'PROVIDER_ALPHA_KIND',
    ],
    [{ PROVIDER_ALPHA_USERINFO_URL: 'ftp://a.example' }, 'PROVIDER_ALPHA_USERINFO_URL'],
    [
      { PROVIDER_ALPHA_USERINFO_URL: 'https://a.example', PROVIDER_ALPHA_CLIENT_ID: 'ours' },
      'PROVIDER_ALPHA_TOKENINFO_URL',
    ],
    [
      { PROVIDER_BETA_JWKS_URL: 'https://b.example/jwks', PROVIDER_BETA_ISSUER: 'https://b.example' },
      'PROVIDER_BETA_AUDIENCE',
    ],
    [
      { PROVIDER_BETA_KIND: 'id-token', PROVIDER_BETA_TOKENINFO_URL: 'https://b.example' },
      'PROVIDER_BETA_JWKS_URL',
    ],
    [{ PROVIDER_TIMEOUT_MS: '0' }, 'PROVIDER_TIMEOUT_MS'],
  ])('refuses %o, naming %s', (env, variable) => {
    expect(configError(env).variable).toBe(variable);
  });
});

describe('REGISTER_PROVIDERS defaults', () => {
  it('registers with the seed names that PROVIDERS still knows when unset', () => {
    expect(loadConfig({ PROVIDERS: 'alpha,gamma' }).providers.registerNames).toEqual(['alpha']);
    expect(loadConfig({ PROVIDERS: 'kakao,apple' }).providers.registerNames).toEqual([]);
  });

  it('switches provider sign-up off with `none`', () => {
    expect(loadConfig({ REGISTER_PROVIDERS: 'none' }).providers.registerNames).toEqual([]);
  });
});
