import { boolean, ConfigError, type Env, httpUrl, integer, raw } from './env.js';

/** The variables that turn identity verification on; all three or none. */
export const PORTONE_VARIABLES = ['PORTONE_API_SECRET', 'PORTONE_STORE_ID', 'PORTONE_CHANNEL_KEY'] as const;

/** PortOne's own API, unless PORTONE_API_URL points elsewhere (tests point it at a fake on 127.0.0.1). */
export const PORTONE_DEFAULT_API_URL = 'https://api.portone.io';

/** A carrier identity verification (본인인증) through PortOne V2 (docs/identity.md). */
export interface PortOneConfig {
  /** PORTONE_API_SECRET: the V2 API secret (`Authorization: PortOne <secret>`). */
  apiSecret: string;
  /** PORTONE_STORE_ID: the store verifications must belong to. */
  storeId: string;
  /** PORTONE_CHANNEL_KEY: the channel the apps and pages hand to PortOne's browser SDK. */
  channelKey: string;
  /** PORTONE_API_URL. */
  apiUrl: string;
  /** PORTONE_TIMEOUT_MS: how long one question to PortOne may take before the answer is a 503. */
  timeoutMs: number;
}

export interface IdentityConfig {
  /** undefined = the identity routes answer 503 `identity_verification_not_configured`. */
  portone: PortOneConfig | undefined;
  /** IDENTITY_ONE_ACCOUNT_PER_PERSON: a person (their CI) may hold one live account. */
  oneAccountPerPerson: boolean;
}

/**
 * `secretsKeySet`: SECRETS_KEY is there. The CI is kept only as an HMAC under a key derived from it, so
 * PortOne without SECRETS_KEY would have nowhere safe to keep one: refused at start rather than mid-request.
 */
export function parseIdentity(env: Env, secretsKeySet: boolean): IdentityConfig {
  const oneAccountPerPerson = boolean(env, 'IDENTITY_ONE_ACCOUNT_PER_PERSON', true);
  const apiSecret = raw(env, 'PORTONE_API_SECRET');
  const storeId = raw(env, 'PORTONE_STORE_ID');
  const channelKey = raw(env, 'PORTONE_CHANNEL_KEY');
  if (apiSecret === undefined && storeId === undefined && channelKey === undefined) {
    return { portone: undefined, oneAccountPerPerson };
  }
  const given = { PORTONE_API_SECRET: apiSecret, PORTONE_STORE_ID: storeId, PORTONE_CHANNEL_KEY: channelKey };
  const missing = PORTONE_VARIABLES.find((name) => given[name] === undefined);
  if (missing !== undefined || apiSecret === undefined || storeId === undefined || channelKey === undefined) {
    throw new ConfigError(
      missing ?? 'PORTONE_API_SECRET',
      `must be set with ${PORTONE_VARIABLES.join(', ')}`,
    );
  }
  if (!secretsKeySet) {
    // Never echo the secret: name the variable only.
    throw new ConfigError(
      'SECRETS_KEY',
      'must be set when PORTONE_API_SECRET is (the CI is kept as an HMAC under a key derived from it)',
    );
  }
  return {
    portone: {
      apiSecret,
      storeId,
      channelKey,
      apiUrl: httpUrl(env, 'PORTONE_API_URL') ?? PORTONE_DEFAULT_API_URL,
      timeoutMs: integer(env, 'PORTONE_TIMEOUT_MS', 10_000, 1, 120_000),
    },
    oneAccountPerPerson,
  };
}
