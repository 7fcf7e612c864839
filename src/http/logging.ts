import { type FastifyReply, type FastifyRequest, LogController } from 'fastify';
import type { LoggerOptions } from 'pino';
import { maskPhone } from '../lib/phone-number.js';

/**
 * Where a path stops being a route and starts carrying parameters of its own: a matrix parameter
 * (`/v1/user/get;api_token=…`) or a `name=value` segment, raw or percent-encoded. No route of the service has
 * one, so whatever follows is something the router did not match, and may be a secret.
 */
const PATH_PARAMETER = /;|=|%3b|%3d/i;

/**
 * Longer query keys are not logged: no parameter of the service is named with more than 32 characters, and a
 * bare `?<token>` makes the secret the key (an API token is 43).
 */
const MAX_LOGGED_KEY = 32;

/**
 * The URL as logged: the path up to any parameter the router did not match, and the query's keys without a
 * single value. No list of secret names is consulted: an attacker's spelling (`api_token%00=`, `api_token[]`,
 * a matrix parameter) need not be foreseen for its value to stay out of the log.
 */
export function redactUrl(url: string): string {
  const queryStart = url.indexOf('?');
  const rawPath = queryStart === -1 ? url : url.slice(0, queryStart);
  const cut = rawPath.search(PATH_PARAMETER);
  const path = cut === -1 ? rawPath : `${rawPath.slice(0, cut)};[redacted]`;
  if (queryStart === -1) return path;
  const keys = url
    .slice(queryStart + 1)
    .split('&')
    .filter((pair) => pair !== '')
    .map((pair) => {
      const equals = pair.indexOf('=');
      const key = equals === -1 ? pair : pair.slice(0, equals);
      return key.length > MAX_LOGGED_KEY ? '[redacted]' : key;
    });
  return `${path}?${keys.join('&')}`;
}

const CENSOR = '[redacted]';

/** Keys whose values are secrets wherever they appear: credentials, tokens, hashes, auth headers. */
const SECRET_KEYS = new Set([
  'password',
  'current_password',
  'password_hash',
  'api_token',
  'token',
  'access_token',
  'id_token',
  'refresh_token',
  'authorization',
  'cookie',
  'set-cookie',
]);

/** Keys whose values are mobile numbers: logged masked (`+82 10-****-5678`), never whole. */
const PHONE_KEYS = new Set(['phone', 'to_number']);

/** A key's logged value: censored when secret, masked when a number, else as it is. */
function logged(key: string, value: unknown, isSecret: (key: string) => boolean): unknown {
  if (isSecret(key)) return CENSOR;
  if (PHONE_KEYS.has(key) && typeof value === 'string') return maskPhone(value);
  return value;
}

/** Top-level keys whose serializers below produce a fixed shape with no secret in it: not scanned. */
const KNOWN_SHAPES = new Set(['req', 'res', 'responseTime']);

/**
 * A shallow copy that keeps the prototype and every own property (an Error keeps its message, stack and
 * class, so pino's err serializer still treats it as an error).
 */
function shallowCopy<T extends object>(value: T): Record<string, unknown> {
  const copy = Object.create(Object.getPrototypeOf(value), Object.getOwnPropertyDescriptors(value));
  // Newer V8 (Node 24+) makes an error's `stack` an accessor that reads the original's internal slot: on the
  // copy it would answer nothing, so the copy keeps the text itself.
  if (value instanceof Error) Object.defineProperty(copy, 'stack', { value: value.stack, writable: true });
  return copy;
}

/**
 * `value` with its secret-named keys censored (a copy, only when there is one); one level, like the
 * `*.password` redaction paths this replaces. Not a wildcard path engine: one Set lookup per key.
 */
function censorOneLevel(value: unknown, isSecret: (key: string) => boolean): unknown {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
  let copy: Record<string, unknown> | undefined;
  const record = value as Record<string, unknown>;
  for (const key of Object.keys(value)) {
    const shown = logged(key, record[key], isSecret);
    if (shown !== record[key]) {
      copy ??= shallowCopy(value);
      copy[key] = shown;
    }
  }
  return copy ?? value;
}

/**
 * pino's `formatters.log`: runs on every line's own object (before serializers). Censors secret-named keys
 * at the top level and one level down (`{ body: { password } }`, `{ err }` carrying a `password`, `{ params:
 * { kakao_access_token } }`), copying only the objects that hold one. The access line's `req`/`res` are
 * known shapes (their serializers pick safe fields) and are not scanned.
 */
export function censorSecrets(
  providerNames: readonly string[] = [],
): (object: Record<string, unknown>) => Record<string, unknown> {
  const secret = new Set([...SECRET_KEYS, ...providerNames.map((name) => `${name}_access_token`)]);
  // Any `<provider>_access_token`, also of a provider this deployment does not name (a stray client field).
  const isSecret = (key: string) =>
    secret.has(key) || secret.has(key.toLowerCase()) || key.endsWith('_access_token');
  return (object) => {
    let out: Record<string, unknown> | undefined;
    for (const key of Object.keys(object)) {
      if (KNOWN_SHAPES.has(key)) continue;
      const value = object[key];
      const shown = logged(key, value, isSecret);
      const censored = shown !== value ? shown : censorOneLevel(value, isSecret);
      if (censored !== value) {
        out ??= { ...object };
        out[key] = censored;
      }
    }
    return out ?? object;
  };
}

/**
 * pino options for the service. Bodies and headers are never logged: the request and response serializers
 * keep fixed fields, and any other object that carries a secret by name (provider tokens of every configured
 * provider name included, in error objects too) is censored by `censorSecrets`.
 */
export function loggerOptions(level: string, providerNames: readonly string[] = []): LoggerOptions {
  return {
    level,
    formatters: { log: censorSecrets(providerNames) },
    serializers: {
      req: (request: FastifyRequest) => ({
        method: request.method,
        url: redactUrl(request.url),
        remoteAddress: request.ip,
        // Bounded: a client chooses this header's length, and a log line should not.
        userAgent: request.headers['user-agent']?.slice(0, 256),
      }),
      res: (reply: FastifyReply) => ({ statusCode: reply.statusCode }),
    },
  };
}

/**
 * Fastify's request logging, reshaped: one access line per request, when the answer has gone out (Fastify
 * writes an "incoming request" and a "request completed" line, each through the serializers): method,
 * redacted URL, address, user agent, status and time. At debug level an "incoming request" line too, so a
 * request that never completes (a stalled body, a client that resets) is still visible. Every other
 * framework log line (errors, aborted streams, unmatched routes) is Fastify's own.
 */
export class AccessLog extends LogController {
  override incomingRequest(request: FastifyRequest): void {
    // One level comparison per request at info and above.
    if (request.log.level === 'debug' || request.log.level === 'trace') {
      request.log.debug({ req: request }, 'incoming request');
    }
  }

  override requestCompleted(
    error: Error | null | undefined,
    request: FastifyRequest,
    reply: FastifyReply,
  ): void {
    if (error) {
      reply.log.error(
        { req: request, res: reply, err: error, responseTime: reply.elapsedTime },
        'request errored',
      );
    } else {
      reply.log.info({ req: request, res: reply, responseTime: reply.elapsedTime }, 'request completed');
    }
  }
}
