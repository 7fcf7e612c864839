import path from 'node:path';
import { type EnvReader, type ProvidersConfig, parseProviders } from './providers/config.js';

/**
 * The service's whole configuration, parsed once from the environment. Nothing else reads process.env:
 * a bad value stops the process at start with one line naming the variable, never later mid-request.
 */
export interface Config {
  port: number;
  host: string;
  dataDir: string;
  /** undefined = embedded PGlite under dataDir. */
  databaseUrl: string | undefined;
  databasePoolMax: number;
  apiVersions: string[];
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  bodyLimitBytes: number;
  fileSizeLimitBytes: number;
  imageMaxPixels: number;
  argon2: { memoryKib: number; timeCost: number; parallelism: number };
  migrateOnStart: boolean;
  /** undefined = tokens live until revoked. */
  tokenTtlDays: number | undefined;
  trustProxy: boolean;
  shutdownTimeoutMs: number;
  /** Identity providers (PROVIDERS, REGISTER_PROVIDERS, PROVIDER_*). */
  providers: ProvidersConfig;
  /** Where profile images are stored and how their URLs are built. */
  media: MediaConfig;
  /** undefined = no Redis: rate-limit counters live in this process. */
  redisUrl: string | undefined;
  /** Rate limits (DESIGN §5): RATE_LIMIT_*. */
  rateLimits: RateLimitsConfig;
}

/** At most `points` hits per key in a fixed window of `windowSeconds`. */
export interface Limit {
  points: number;
  windowSeconds: number;
}

/**
 * Throttles on the endpoints an attacker scripts first. Defaults follow OWASP ASVS 5.0 V6.3 and NIST 800-63B
 * (at most 100 failed attempts per account per hour; 10 per 15 minutes stays well below that).
 */
export interface RateLimitsConfig {
  enabled: boolean;
  /** Prefix of every Redis key, so deployments (and test runs) sharing one Redis keep apart. */
  keyPrefix: string;
  /** Failed logins per (lower-cased email, IP), and per (provider identity, IP). */
  loginFailures: Limit;
  /** Login requests per IP, email and provider logins together. */
  loginIp: Limit;
  /** validate/email, validate/username and validate/slug requests per IP, together. */
  validateIp: Limit;
  /** Registration requests per IP. */
  registerIp: Limit;
}

/**
 * Image storage: local files under `DATA_DIR/media` served at `/media/*` (zero setup), or S3-compatible
 * object storage when `S3_BUCKET` is set (what a scaled-out deployment uses: every instance sees every file).
 */
export type MediaConfig =
  | { driver: 'local'; dir: string; baseUrl: string }
  | {
      driver: 's3';
      bucket: string;
      region: string;
      endpoint: string | undefined;
      forcePathStyle: boolean;
      credentials: { accessKeyId: string; secretAccessKey: string } | undefined;
      publicBaseUrl: string;
    };

export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    detail: string,
  ) {
    super(`Invalid configuration: ${variable} ${detail}`);
    this.name = 'ConfigError';
  }
}

type Env = Record<string, string | undefined>;

/** Unset and empty both mean "use the default", as in a .env file with `NAME=`. */
function raw(env: Env, name: string): string | undefined {
  const value = env[name]?.trim();
  return value === undefined || value === '' ? undefined : value;
}

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const value = raw(env, name);
  if (value === undefined) return fallback;
  if (!/^\d+$/.test(value) || Number(value) < min || Number(value) > max) {
    throw new ConfigError(name, `must be a whole number from ${min} to ${max} (got "${value}")`);
  }
  return Number(value);
}

function optionalInteger(env: Env, name: string, min: number, max: number): number | undefined {
  return raw(env, name) === undefined ? undefined : integer(env, name, 0, min, max);
}

function boolean(env: Env, name: string, fallback: boolean): boolean {
  const value = raw(env, name)?.toLowerCase();
  if (value === undefined) return fallback;
  if (['1', 'true', 'yes', 'on'].includes(value)) return true;
  if (['0', 'false', 'no', 'off'].includes(value)) return false;
  throw new ConfigError(name, `must be true or false (got "${value}")`);
}

const SIZE_UNITS: Record<string, number> = {
  '': 1,
  b: 1,
  k: 1024,
  kb: 1024,
  m: 1024 ** 2,
  mb: 1024 ** 2,
  g: 1024 ** 3,
  gb: 1024 ** 3,
};

/** Byte sizes as `1048576`, `512k`, `1mb` or `10 MB`. */
function byteSize(env: Env, name: string, fallback: number): number {
  const value = raw(env, name);
  if (value === undefined) return fallback;
  const match = /^(\d+)\s*([kmg]?b?)$/i.exec(value);
  const unit = SIZE_UNITS[match?.[2]?.toLowerCase() ?? 'x'];
  if (!match || unit === undefined || Number(match[1]) === 0) {
    throw new ConfigError(name, `must be a size such as 1048576, 512kb or 1mb (got "${value}")`);
  }
  return Number(match[1]) * unit;
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

function logLevel(env: Env): Config['logLevel'] {
  const value = raw(env, 'LOG_LEVEL')?.toLowerCase() ?? 'info';
  const level = LOG_LEVELS.find((candidate) => candidate === value);
  if (!level) throw new ConfigError('LOG_LEVEL', `must be one of ${LOG_LEVELS.join(', ')} (got "${value}")`);
  return level;
}

function apiVersions(env: Env): string[] {
  const value = raw(env, 'API_VERSIONS') ?? 'dev,v1';
  const versions = value
    .split(',')
    .map((v) => v.trim())
    .filter((v) => v !== '');
  const bad = versions.find((v) => !/^[A-Za-z0-9._-]+$/.test(v));
  if (versions.length === 0 || bad !== undefined) {
    throw new ConfigError('API_VERSIONS', `must be a comma-separated list of path segments (got "${value}")`);
  }
  return [...new Set(versions)];
}

function databaseUrl(env: Env): string | undefined {
  const value = raw(env, 'DATABASE_URL');
  if (value === undefined) return undefined;
  if (!/^postgres(ql)?:\/\//.test(value)) {
    // The value may hold a password: name the variable, never echo it.
    throw new ConfigError('DATABASE_URL', 'must be a postgres:// or postgresql:// URL');
  }
  return value;
}

/** Hands the providers parser this module's readers, so only this module touches the environment. */
function envReader(env: Env): EnvReader {
  return {
    raw: (name) => raw(env, name),
    integer: (name, fallback, min, max) => integer(env, name, fallback, min, max),
    fail: (name, detail) => {
      throw new ConfigError(name, detail);
    },
  };
}

function httpUrl(env: Env, name: string): string | undefined {
  const value = raw(env, name);
  if (value === undefined) return undefined;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ConfigError(name, `must be an http:// or https:// URL (got "${value}")`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ConfigError(name, `must be an http:// or https:// URL (got "${value}")`);
  }
  return value.replace(/\/+$/, '');
}

/** `MEDIA_BASE_URL`: an absolute URL, or a path starting with `/` (relative to the API's own host). */
function mediaBaseUrl(env: Env): string {
  const value = raw(env, 'MEDIA_BASE_URL');
  if (value === undefined) return '/media';
  if (value.startsWith('/') && !value.startsWith('//')) return value.replace(/\/+$/, '');
  return httpUrl(env, 'MEDIA_BASE_URL') as string;
}

function media(env: Env, dataDir: string): MediaConfig {
  const bucket = raw(env, 'S3_BUCKET');
  if (bucket === undefined)
    return { driver: 'local', dir: path.join(dataDir, 'media'), baseUrl: mediaBaseUrl(env) };
  if (!/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(bucket)) {
    throw new ConfigError('S3_BUCKET', `must be a valid bucket name (got "${bucket}")`);
  }
  const region = raw(env, 'S3_REGION') ?? 'us-east-1';
  const endpoint = httpUrl(env, 'S3_ENDPOINT');
  const forcePathStyle = boolean(env, 'S3_FORCE_PATH_STYLE', false);
  const accessKeyId = raw(env, 'S3_ACCESS_KEY_ID');
  const secretAccessKey = raw(env, 'S3_SECRET_ACCESS_KEY');
  if ((accessKeyId === undefined) !== (secretAccessKey === undefined)) {
    // Never echo either value: one of them is a secret.
    throw new ConfigError(
      accessKeyId === undefined ? 'S3_ACCESS_KEY_ID' : 'S3_SECRET_ACCESS_KEY',
      'must be set together with its pair (or neither, to use the AWS default credential chain)',
    );
  }
  const credentials =
    accessKeyId !== undefined && secretAccessKey !== undefined ? { accessKeyId, secretAccessKey } : undefined;
  const derivedBase = endpoint
    ? forcePathStyle
      ? `${endpoint}/${bucket}`
      : undefined
    : `https://${bucket}.s3.${region}.amazonaws.com`;
  const publicBaseUrl = httpUrl(env, 'S3_PUBLIC_BASE_URL') ?? derivedBase;
  if (publicBaseUrl === undefined) {
    throw new ConfigError(
      'S3_PUBLIC_BASE_URL',
      'must be set when S3_ENDPOINT is set without S3_FORCE_PATH_STYLE',
    );
  }
  return { driver: 's3', bucket, region, endpoint, forcePathStyle, credentials, publicBaseUrl };
}

function redisUrl(env: Env): string | undefined {
  const value = raw(env, 'REDIS_URL');
  if (value === undefined) return undefined;
  // The value may hold a password: name the variable, never echo it.
  if (!/^rediss?:\/\/[^\s]*$/.test(value))
    throw new ConfigError('REDIS_URL', 'must be a redis:// or rediss:// URL');
  return value;
}

const WINDOW_UNITS: Record<string, number> = { s: 1, m: 60, h: 3600 };
const MAX_WINDOW_SECONDS = 24 * 3600;

/** A limit as `N/<window>`: `10/15m` is 10 per 15 minutes; units s, m, h; `60/m` means `60/1m`. */
function limit(env: Env, name: string, fallback: string): Limit {
  const value = raw(env, name) ?? fallback;
  const match = /^(\d+)\s*\/\s*(\d*)\s*([smh])$/i.exec(value);
  const points = Number(match?.[1]);
  const windowSeconds = Number(match?.[2] || '1') * (WINDOW_UNITS[match?.[3]?.toLowerCase() ?? ''] ?? 0);
  if (!match || points < 1 || points > 1_000_000 || windowSeconds < 1 || windowSeconds > MAX_WINDOW_SECONDS) {
    throw new ConfigError(
      name,
      `must be a limit such as 10/15m (1 to 1000000 per 1s to 24h; units s, m, h) (got "${value}")`,
    );
  }
  return { points, windowSeconds };
}

function rateLimits(env: Env): RateLimitsConfig {
  const keyPrefix = raw(env, 'RATE_LIMIT_KEY_PREFIX') ?? 'accounts:rl';
  if (!/^[A-Za-z0-9:._-]{1,100}$/.test(keyPrefix)) {
    throw new ConfigError(
      'RATE_LIMIT_KEY_PREFIX',
      `must be 1 to 100 of A-Z a-z 0-9 : . _ - (got "${keyPrefix}")`,
    );
  }
  return {
    enabled: boolean(env, 'RATE_LIMIT_ENABLED', true),
    keyPrefix,
    loginFailures: limit(env, 'RATE_LIMIT_LOGIN_FAILURES', '10/15m'),
    loginIp: limit(env, 'RATE_LIMIT_LOGIN_IP', '100/15m'),
    validateIp: limit(env, 'RATE_LIMIT_VALIDATE_IP', '60/1m'),
    registerIp: limit(env, 'RATE_LIMIT_REGISTER_IP', '20/1h'),
  };
}

export function loadConfig(env: Env = process.env): Config {
  const dataDir = path.resolve(raw(env, 'DATA_DIR') ?? './data');
  return {
    port: integer(env, 'PORT', 8080, 0, 65535),
    host: raw(env, 'HOST') ?? '127.0.0.1',
    dataDir,
    databaseUrl: databaseUrl(env),
    databasePoolMax: integer(env, 'DATABASE_POOL_MAX', 10, 1, 1000),
    apiVersions: apiVersions(env),
    logLevel: logLevel(env),
    bodyLimitBytes: byteSize(env, 'BODY_LIMIT', 1024 ** 2),
    fileSizeLimitBytes: byteSize(env, 'FILE_SIZE_LIMIT', 10 * 1024 ** 2),
    imageMaxPixels: integer(env, 'IMAGE_MAX_PIXELS', 40_000_000, 1, 1_000_000_000),
    argon2: {
      memoryKib: integer(env, 'ARGON2_MEMORY_KIB', 19_456, 1024, 4_194_304),
      timeCost: integer(env, 'ARGON2_TIME_COST', 2, 1, 100),
      parallelism: integer(env, 'ARGON2_PARALLELISM', 1, 1, 16),
    },
    migrateOnStart: boolean(env, 'MIGRATE_ON_START', true),
    tokenTtlDays: optionalInteger(env, 'TOKEN_TTL_DAYS', 1, 36_500),
    trustProxy: boolean(env, 'TRUST_PROXY', false),
    shutdownTimeoutMs: integer(env, 'SHUTDOWN_TIMEOUT_MS', 10_000, 0, 600_000),
    providers: parseProviders(envReader(env)),
    media: media(env, dataDir),
    redisUrl: redisUrl(env),
    rateLimits: rateLimits(env),
  };
}
