import { boolean, ConfigError, type Env, httpUrl, integer, raw } from './env.js';
import { MAKE_SECRETS_KEY } from './second-factor.js';

/** The variables that turn identity verification on; all three or none. */
export const PORTONE_VARIABLES = ['PORTONE_API_SECRET', 'PORTONE_STORE_ID', 'PORTONE_CHANNEL_KEY'] as const;

/** PortOne's own API, unless PORTONE_API_URL points elsewhere (tests point it at a fake on 127.0.0.1). */
export const PORTONE_DEFAULT_API_URL = 'https://api.portone.io';

/**
 * Where PortOne's browser script talks to and frames from, on the pages that run its verification window
 * (src/web/headers.ts adds them to those pages' connect-src and frame-src). The script
 * (cdn.portone.io/v2/browser-sdk.js, which @portone/browser-sdk loads) names its servers on PortOne's
 * domains: its drivers and their definitions on cdn.portone.io, its checkout, bridge and telemetry
 * services on *.prod.iamport.co, its core service on service.iamport.kr. PortOne changes that script
 * without a release of ours, so each domain it owns is allowed whole; PORTONE_BROWSER_ORIGINS replaces
 * the list should it move to another.
 */
export const PORTONE_DEFAULT_BROWSER_ORIGINS: readonly string[] = [
  'https://*.portone.io',
  'https://*.iamport.co',
  'https://*.iamport.kr',
];

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
  /** PORTONE_BROWSER_ORIGINS: what the pages running PortOne's window may connect to and frame. */
  browserOrigins: readonly string[];
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
      `must be set when PORTONE_API_SECRET is (the CI is kept as an HMAC under a key derived from it): ${MAKE_SECRETS_KEY}`,
    );
  }
  return {
    portone: {
      apiSecret,
      storeId,
      channelKey,
      apiUrl: httpUrl(env, 'PORTONE_API_URL') ?? PORTONE_DEFAULT_API_URL,
      timeoutMs: integer(env, 'PORTONE_TIMEOUT_MS', 10_000, 1, 120_000),
      browserOrigins: browserOrigins(env),
    },
    oneAccountPerPerson,
  };
}

/** An https origin, or every subdomain of one (`https://*.portone.io`): a CSP source with nothing else in it. */
const CSP_ORIGIN = /^https:\/\/(\*\.)?([a-z0-9](-*[a-z0-9])*)(\.[a-z0-9](-*[a-z0-9])*)+$/;

/**
 * PORTONE_BROWSER_ORIGINS: comma-separated https origins, a leading `*.` for every subdomain. Only origins:
 * a path, a scheme alone, a bare `*` or a keyword (`'unsafe-inline'`) would open the pages to far more than
 * PortOne, so they stop the start.
 */
function browserOrigins(env: Env): readonly string[] {
  const value = raw(env, 'PORTONE_BROWSER_ORIGINS');
  if (value === undefined) return PORTONE_DEFAULT_BROWSER_ORIGINS;
  const entries = value
    .split(',')
    .map((part) => part.trim().toLowerCase())
    .filter((part) => part !== '');
  const wrong = entries.find((entry) => !CSP_ORIGIN.test(entry));
  if (entries.length === 0 || wrong !== undefined) {
    throw new ConfigError(
      'PORTONE_BROWSER_ORIGINS',
      `must be a comma-separated list of https origins such as https://*.portone.io (got "${wrong ?? value}")`,
    );
  }
  return [...new Set(entries)];
}
