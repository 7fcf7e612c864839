import { ConfigError, type Env, raw } from './env.js';
import { duration } from './mail.js';

/** The algorithms an access token may be signed with (ACCESS_TOKEN_ALG). */
export const ACCESS_TOKEN_ALGS = ['EdDSA', 'ES256'] as const;
export type AccessTokenAlg = (typeof ACCESS_TOKEN_ALGS)[number];

/** Signed access tokens for the app's other services (docs/tokens.md). */
export interface AccessTokensConfig {
  /** ACCESS_TOKEN_ALG: what new keys sign with (Ed25519 by default). */
  alg: AccessTokenAlg;
  /** ACCESS_TOKEN_TTL: how long an access token lives, in ms. */
  ttlMs: number;
  /** ACCESS_TOKEN_AUDIENCE: the `aud` claim, the services the tokens are for (default PUBLIC_URL). */
  audience: string;
  /** The `iss` claim: PUBLIC_URL. */
  issuer: string;
  /** ACCESS_KEY_PUBLISH_AHEAD: how long a new key is published before it signs, in ms. */
  publishAheadMs: number;
}

export function parseAccessTokens(env: Env, publicUrl: string): AccessTokensConfig {
  const alg = raw(env, 'ACCESS_TOKEN_ALG') ?? 'EdDSA';
  const known = ACCESS_TOKEN_ALGS.find((candidate) => candidate === alg);
  if (known === undefined) {
    throw new ConfigError(
      'ACCESS_TOKEN_ALG',
      `must be one of ${ACCESS_TOKEN_ALGS.join(', ')} (got "${alg}")`,
    );
  }
  const audience = raw(env, 'ACCESS_TOKEN_AUDIENCE') ?? publicUrl;
  if (audience.length > 255 || /[\s,]/.test(audience)) {
    throw new ConfigError(
      'ACCESS_TOKEN_AUDIENCE',
      `must be one name of at most 255 characters without spaces (got "${audience}")`,
    );
  }
  return {
    alg: known,
    // At least 30 s (a token that dies in flight helps nobody), at most an hour: the lifetime is how long a
    // revoked session still opens the other services.
    ttlMs: duration(env, 'ACCESS_TOKEN_TTL', '5m', 30_000, 3_600_000),
    audience,
    issuer: publicUrl,
    publishAheadMs: duration(env, 'ACCESS_KEY_PUBLISH_AHEAD', '10m', 0, 86_400_000),
  };
}
