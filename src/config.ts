import { isIP } from 'node:net';
import path from 'node:path';
import { type AccessRecordsConfig, parseAccessRecords } from './config/access-records.js';
import { type AccessTokensConfig, parseAccessTokens } from './config/access-tokens.js';
import { type ConsoleConfig, parseConsole } from './config/console.js';
import { parseCorsOrigins } from './config/cors.js';
import { type DataExportConfig, parseDataExport } from './config/data-export.js';
import { type DatabaseTimeouts, parseDatabaseTimeouts } from './config/database.js';
import { type DeletionConfig, parseDeletion } from './config/deletion.js';
import { boolean, byteSize, ConfigError, type Env, integer, optionalInteger, raw } from './config/env.js';
import { type GuardianConfig, parseGuardian } from './config/guardian.js';
import { type HashingConfig, parseHashing } from './config/hashing.js';
import { type HttpConfig, parseHttp } from './config/http.js';
import { type IdentityConfig, parseIdentity } from './config/identity.js';
import { type ImageRenderingConfig, parseImageRendering, parseMediaSweepInterval } from './config/images.js';
import { duration, type MailConfig, parseMail } from './config/mail.js';
import { type MediaConfig, parseMedia } from './config/media.js';
import { type MetricsConfig, parseMetrics } from './config/metrics.js';
import { parseBannerLinkSchemes } from './config/promotions.js';
import { type PushConfig, parsePush } from './config/push.js';
import { type Limit, parseRateLimits, parseRedisUrl, type RateLimitsConfig } from './config/rate-limits.js';
import { parseReplicas, type ReplicasConfig } from './config/replicas.js';
import { parseSecondFactor, type SecondFactorConfig } from './config/second-factor.js';
import { parseSecurityEvents, type SecurityEventsConfig } from './config/security-events.js';
import { parseSms, type SmsConfig } from './config/sms.js';
import { parseTracing, type TracingConfig } from './config/tracing.js';
import { parseWebAuthn, type WebAuthnConfig } from './config/webauthn.js';
import { parseWebhooks, type WebhooksConfig } from './config/webhooks.js';
import { type EnvReader, type ProvidersConfig, parseProviders } from './providers/config.js';

export {
  ConfigError,
  type Limit,
  type MailConfig,
  type MediaConfig,
  type MetricsConfig,
  type RateLimitsConfig,
  type WebAuthnConfig,
};

/**
 * The service's whole configuration, parsed once from the environment (with the readers of `config/` and
 * `providers/config.ts`). Nothing else reads process.env: a bad value stops the process at start with one
 * line naming the variable, never later mid-request.
 */
export interface Config {
  port: number;
  host: string;
  dataDir: string;
  /** undefined = embedded PGlite under dataDir. */
  databaseUrl: string | undefined;
  databasePoolMax: number;
  /** DATABASE_PREPARED_STATEMENTS: the hot queries as named statements, on a server and on PGlite (default on). */
  databasePreparedStatements: boolean;
  /** DATABASE_*_TIMEOUT_MS: every wait for the database is bounded. */
  database: DatabaseTimeouts;
  /** DATABASE_REPLICA_URLS, REPLICA_MAX_LAG_MS: hot standbys that serve the public reads. */
  replicas: ReplicasConfig;
  /** REQUEST_TIMEOUT_MS, HEADERS_TIMEOUT_MS, KEEP_ALIVE_TIMEOUT_MS: how long a client may take. */
  http: HttpConfig;
  apiVersions: string[];
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  bodyLimitBytes: number;
  fileSizeLimitBytes: number;
  imageMaxPixels: number;
  /** The image renderer processes: IMAGE_WORKERS, IMAGE_QUEUE_LIMIT, IMAGE_TIMEOUT_MS, IMAGE_WORKER_HEAP_MB. */
  imageRendering: ImageRenderingConfig;
  argon2: { memoryKib: number; timeCost: number; parallelism: number };
  /** The password hashing processes: HASH_WORKERS, HASH_QUEUE_LIMIT, HASH_TIMEOUT_MS. */
  hashing: HashingConfig;
  migrateOnStart: boolean;
  /** undefined = tokens live until revoked. */
  tokenTtlDays: number | undefined;
  /** REAUTH_WINDOW: how long a proof given to user/reauth stands for that session (absolute, not renewed). */
  reauthWindowMs: number;
  /**
   * Which proxies' X-Forwarded-For to believe: false (none) or their addresses/CIDRs. Never "all": a client
   * could then name its own IP and walk past every per-IP limit. (No hop count either: Fastify cannot check
   * the immediate peer with one, so it trusts nothing.)
   */
  trustProxy: false | string[];
  shutdownTimeoutMs: number;
  /** Identity providers (PROVIDERS, REGISTER_PROVIDERS, PROVIDER_*). */
  providers: ProvidersConfig;
  /** Where profile images are stored and how their URLs are built. */
  media: MediaConfig;
  /** Minutes between sweeps of unreferenced local media files; 0 = no sweep. */
  mediaSweepIntervalMinutes: number;
  /** undefined = no Redis: rate-limit counters live in this process. */
  redisUrl: string | undefined;
  /** Rate limits, on by default: RATE_LIMIT_*. */
  rateLimits: RateLimitsConfig;
  /** How test pushes are delivered: PUSH_TRANSPORT, FCM_*. */
  push: PushConfig;
  /** /metrics: METRICS_PORT, METRICS_TOKEN. */
  metrics: MetricsConfig;
  /** Origins of web clients allowed to call the API from a browser (CORS_ORIGINS); empty = none. */
  corsOrigins: string[];
  /** Mail transport, retries, one-time token lifetimes and link templates: MAIL_*, SMTP_*, …. */
  mail: MailConfig;
  /** Text messages: SOLAPI_*, SMS_ALLOWED_COUNTRIES, SMS_RETRY_* (their limits are in rateLimits). */
  sms: SmsConfig;
  /** Account deletion's grace period and sweep: DELETION_GRACE_DAYS, DELETION_SWEEP_INTERVAL. */
  deletion: DeletionConfig;
  /** Age at sign-up and a guardian's consent under 14: AGE_GATE, GUARDIAN_CONSENT_URL, GUARDIAN_CONSENT_DAYS. */
  guardian: GuardianConfig;
  /** Serve /docs and /openapi.json (DOCS_ENABLED, default on). */
  docsEnabled: boolean;
  /** The apps' own schemes a banner may link to besides http(s) (BANNER_LINK_SCHEMES); empty = none. */
  bannerLinkSchemes: string[];
  /** Data exports: EXPORT_TTL_HOURS, EXPORT_JOB_INTERVAL. */
  dataExport: DataExportConfig;
  /** The security activity log's retention and its alert mails: SECURITY_EVENTS_DAYS, SECURITY_ALERTS. */
  securityEvents: SecurityEventsConfig;
  /** The operator console: CONSOLE_LOCKOUT, CONSOLE_IDLE_TIMEOUT, CONSOLE_ALLOWED_NETWORKS. */
  console: ConsoleConfig;
  /** The access records' retention and review: ACCESS_RECORD_RETENTION, CONSOLE_WORKING_HOURS, CONSOLE_WORKING_DAYS,
   * CONSOLE_TIME_ZONE. */
  accessRecords: AccessRecordsConfig;
  /** The TOTP second factor: SECRETS_KEY (secrets at rest), APP_NAME (the issuer authenticators show). */
  secondFactor: SecondFactorConfig;
  /** Passkeys' relying party: WEBAUTHN_RP_ID, WEBAUTHN_RP_NAME, WEBAUTHN_ORIGINS (defaults from PUBLIC_URL). */
  webauthn: WebAuthnConfig;
  /** Account events' webhooks: WEBHOOK_RETRY_SCHEDULE, WEBHOOK_ALLOW_PRIVATE, EVENT_RETENTION_DAYS. */
  webhooks: WebhooksConfig;
  /** Identity verification through PortOne: PORTONE_*, IDENTITY_ONE_ACCOUNT_PER_PERSON. */
  identity: IdentityConfig;
  /** Access tokens for other services: ACCESS_TOKEN_ALG, ACCESS_TOKEN_TTL, ACCESS_TOKEN_AUDIENCE, ACCESS_KEY_PUBLISH_AHEAD. */
  accessTokens: AccessTokensConfig;
  /** OpenTelemetry traces: OTEL_EXPORTER_OTLP_ENDPOINT (unset = off), OTEL_SERVICE_NAME. */
  tracing: TracingConfig;
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

const PROXY_ADDRESS = /^[0-9A-Fa-f:.]+(\/\d{1,3})?$/;

function trustProxy(env: Env): Config['trustProxy'] {
  const value = raw(env, 'TRUST_PROXY');
  if (value === undefined || ['false', 'no', 'off', '0'].includes(value.toLowerCase())) return false;
  const addresses = value.split(',').map((part) => part.trim());
  if (addresses.every((address) => PROXY_ADDRESS.test(address) && isIP(address.split('/')[0] ?? '') !== 0)) {
    return addresses;
  }
  throw new ConfigError(
    'TRUST_PROXY',
    `must be false or the addresses/CIDRs of the proxies in front of the service (got "${value}"); ` +
      'trusting every X-Forwarded-For would let a client choose its own IP',
  );
}

export function loadConfig(env: Env = process.env): Config {
  const dataDir = path.resolve(raw(env, 'DATA_DIR') ?? './data');
  const primaryUrl = databaseUrl(env);
  const mail = parseMail(env, integer(env, 'PORT', 8080, 0, 65535));
  // On the embedded database an unset SECRETS_KEY is kept in DATA_DIR: made on the first start.
  const secondFactor = parseSecondFactor(env, primaryUrl === undefined ? dataDir : undefined);
  return {
    port: integer(env, 'PORT', 8080, 0, 65535),
    host: raw(env, 'HOST') ?? '127.0.0.1',
    dataDir,
    databaseUrl: primaryUrl,
    databasePoolMax: integer(env, 'DATABASE_POOL_MAX', 10, 1, 1000),
    databasePreparedStatements: boolean(env, 'DATABASE_PREPARED_STATEMENTS', true),
    database: parseDatabaseTimeouts(env),
    replicas: parseReplicas(env, primaryUrl),
    http: parseHttp(env),
    apiVersions: apiVersions(env),
    logLevel: logLevel(env),
    bodyLimitBytes: byteSize(env, 'BODY_LIMIT', 1024 ** 2),
    fileSizeLimitBytes: byteSize(env, 'FILE_SIZE_LIMIT', 10 * 1024 ** 2),
    imageMaxPixels: integer(env, 'IMAGE_MAX_PIXELS', 40_000_000, 1, 1_000_000_000),
    imageRendering: parseImageRendering(env),
    hashing: parseHashing(env),
    argon2: {
      memoryKib: integer(env, 'ARGON2_MEMORY_KIB', 19_456, 1024, 4_194_304),
      timeCost: integer(env, 'ARGON2_TIME_COST', 2, 1, 100),
      parallelism: integer(env, 'ARGON2_PARALLELISM', 1, 1, 16),
    },
    migrateOnStart: boolean(env, 'MIGRATE_ON_START', true),
    tokenTtlDays: optionalInteger(env, 'TOKEN_TTL_DAYS', 1, 36_500),
    reauthWindowMs: duration(env, 'REAUTH_WINDOW', '10m', 30_000, 3_600_000),
    trustProxy: trustProxy(env),
    shutdownTimeoutMs: integer(env, 'SHUTDOWN_TIMEOUT_MS', 10_000, 0, 600_000),
    providers: parseProviders(envReader(env)),
    media: parseMedia(env, dataDir),
    mediaSweepIntervalMinutes: parseMediaSweepInterval(env),
    redisUrl: parseRedisUrl(env),
    rateLimits: parseRateLimits(env),
    push: parsePush(env),
    metrics: parseMetrics(env),
    corsOrigins: parseCorsOrigins(env),
    mail,
    sms: parseSms(env),
    deletion: parseDeletion(env),
    guardian: parseGuardian(env, mail.publicUrl),
    docsEnabled: boolean(env, 'DOCS_ENABLED', true),
    bannerLinkSchemes: parseBannerLinkSchemes(env),
    dataExport: parseDataExport(env, dataDir),
    securityEvents: parseSecurityEvents(env),
    console: parseConsole(env),
    accessRecords: parseAccessRecords(env),
    secondFactor,
    webauthn: parseWebAuthn(env, mail.publicUrl),
    webhooks: parseWebhooks(env),
    identity: parseIdentity(env, secondFactor.secretsKey !== undefined || secondFactor.keyFile !== undefined),
    accessTokens: parseAccessTokens(env, mail.publicUrl),
    tracing: parseTracing(env),
  };
}
