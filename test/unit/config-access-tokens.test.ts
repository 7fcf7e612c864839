import { describe, expect, it } from 'vitest';
import { parseAccessTokens } from '../../src/config/access-tokens.js';

const PUBLIC_URL = 'https://accounts.example.com';

describe('access token configuration', () => {
  it('defaults to Ed25519, five minutes, PUBLIC_URL as audience and issuer, keys published 10 minutes ahead', () => {
    expect(parseAccessTokens({}, PUBLIC_URL)).toEqual({
      alg: 'EdDSA',
      ttlMs: 300_000,
      audience: PUBLIC_URL,
      issuer: PUBLIC_URL,
      publishAheadMs: 600_000,
    });
  });

  it('reads each variable', () => {
    const env = {
      ACCESS_TOKEN_ALG: 'ES256',
      ACCESS_TOKEN_TTL: '90s',
      ACCESS_TOKEN_AUDIENCE: 'feed',
      ACCESS_KEY_PUBLISH_AHEAD: '0s',
    };
    expect(parseAccessTokens(env, PUBLIC_URL)).toEqual({
      alg: 'ES256',
      ttlMs: 90_000,
      audience: 'feed',
      issuer: PUBLIC_URL,
      publishAheadMs: 0,
    });
  });

  it.each([
    [{ ACCESS_TOKEN_ALG: 'HS256' }, 'ACCESS_TOKEN_ALG must be one of EdDSA, ES256 (got "HS256")'],
    [{ ACCESS_TOKEN_TTL: '10s' }, 'ACCESS_TOKEN_TTL must be a duration'],
    [{ ACCESS_TOKEN_TTL: '2h' }, 'ACCESS_TOKEN_TTL must be a duration'],
    [{ ACCESS_TOKEN_AUDIENCE: 'a,b' }, 'ACCESS_TOKEN_AUDIENCE must be one name'],
    [{ ACCESS_KEY_PUBLISH_AHEAD: '2d' }, 'ACCESS_KEY_PUBLISH_AHEAD must be a duration'],
  ])('refuses %j, naming the variable', (env, message) => {
    expect(() => parseAccessTokens(env, PUBLIC_URL)).toThrow(`Invalid configuration: ${message}`);
  });
});
