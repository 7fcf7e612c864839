import { getCountries } from 'libphonenumber-js/max';
import { ConfigError, type Env, httpUrl, integer, raw } from './env.js';
import { duration } from './mail.js';

/** The variables that turn SOLAPI on; the three or none. */
export const SOLAPI_VARIABLES = ['SOLAPI_API_KEY', 'SOLAPI_API_SECRET', 'SOLAPI_SENDER'] as const;

/** SOLAPI's own API, unless SOLAPI_API_URL points elsewhere (tests point it at a fake on 127.0.0.1). */
export const SOLAPI_DEFAULT_API_URL = 'https://api.solapi.com';

/** SOLAPI (솔라피), the Korean SMS gateway. */
export interface SolapiConfig {
  apiKey: string;
  apiSecret: string;
  /** SOLAPI_SENDER: the sending number registered with SOLAPI (digits only, as SOLAPI wants it). */
  sender: string;
  apiUrl: string;
  /** SOLAPI_TIMEOUT: one request to SOLAPI, connection included. */
  timeoutMs: number;
}

export interface SmsRetryConfig {
  /** Sends of one message, the first included, before it is given up. */
  maxAttempts: number;
  /** Delay before the first retry; doubled for each further one (capped by the code's own end). */
  baseDelayMs: number;
  /** How often the background sender looks for due messages. */
  intervalMs: number;
}

export interface SmsConfig {
  /** undefined: no gateway; the phone routes answer 503 `sms_not_configured` unless `logCodes`. */
  solapi: SolapiConfig | undefined;
  /** Development (NODE_ENV or ENV `development`) without SOLAPI: the messages go to the log instead. */
  logCodes: boolean;
  /** SMS_ALLOWED_COUNTRIES: the ISO 3166 regions a code may be sent to (default KR). */
  allowedCountries: readonly string[];
  retry: SmsRetryConfig;
}

function isDevelopment(env: Env): boolean {
  return [raw(env, 'NODE_ENV'), raw(env, 'ENV')].some((value) => value?.toLowerCase() === 'development');
}

function allowedCountries(env: Env): string[] {
  const value = raw(env, 'SMS_ALLOWED_COUNTRIES') ?? 'KR';
  const known = new Set<string>(getCountries());
  const countries = [...new Set(value.split(',').map((part) => part.trim().toUpperCase()))];
  if (countries.length === 0 || countries.some((country) => !known.has(country))) {
    throw new ConfigError(
      'SMS_ALLOWED_COUNTRIES',
      `must be a comma-separated list of ISO 3166 country codes such as KR,JP (got "${value}")`,
    );
  }
  return countries;
}

function solapi(env: Env): SolapiConfig | undefined {
  const apiKey = raw(env, 'SOLAPI_API_KEY');
  const apiSecret = raw(env, 'SOLAPI_API_SECRET');
  const sender = raw(env, 'SOLAPI_SENDER');
  if (apiKey === undefined && apiSecret === undefined && sender === undefined) return undefined;
  if (apiKey === undefined || apiSecret === undefined || sender === undefined) {
    const given = { SOLAPI_API_KEY: apiKey, SOLAPI_API_SECRET: apiSecret, SOLAPI_SENDER: sender };
    const missing = Object.entries(given).find(([, value]) => value === undefined)?.[0] ?? 'SOLAPI_API_KEY';
    throw new ConfigError(missing, `must be set with ${SOLAPI_VARIABLES.join(', ')}`);
  }
  // The secret is never echoed; the sender is a phone number of the deployment, not a secret.
  if (!/^[0-9]{8,12}$/.test(sender)) {
    throw new ConfigError(
      'SOLAPI_SENDER',
      `must be the registered sending number, digits only (got "${sender}")`,
    );
  }
  return {
    apiKey,
    apiSecret,
    sender,
    apiUrl: (httpUrl(env, 'SOLAPI_API_URL') ?? SOLAPI_DEFAULT_API_URL).replace(/\/+$/, ''),
    timeoutMs: duration(env, 'SOLAPI_TIMEOUT', '10s', 100, 120_000),
  };
}

export function parseSms(env: Env): SmsConfig {
  return {
    solapi: solapi(env),
    logCodes: isDevelopment(env),
    allowedCountries: allowedCountries(env),
    retry: {
      maxAttempts: integer(env, 'SMS_RETRY_ATTEMPTS', 4, 1, 20),
      baseDelayMs: duration(env, 'SMS_RETRY_BASE_DELAY', '5s', 1, 600_000),
      intervalMs: duration(env, 'SMS_RETRY_INTERVAL', '10s', 100, 3_600_000),
    },
  };
}
