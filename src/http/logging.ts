import type { FastifyRequest } from 'fastify';
import type { LoggerOptions } from 'pino';

/**
 * Query parameters whose values are secrets (`api_token`, `*_access_token`, passwords, and `token`: the
 * verification and password-reset links carry their single-use token as `?token=`).
 */
const SECRET_PARAM = /^(api_token|token|.*access_token|.*password.*|.*secret.*)$/i;

/** The URL as logged: secret query values replaced, so a token presented as `?api_token=` never lands in a log. */
export function redactUrl(url: string): string {
  const queryStart = url.indexOf('?');
  if (queryStart === -1) return url;
  const query = url
    .slice(queryStart + 1)
    .split('&')
    .map((pair) => {
      const [rawName = ''] = pair.split('=', 1);
      let name = rawName;
      try {
        name = decodeURIComponent(rawName.replaceAll('+', ' '));
      } catch {
        // A malformed escape: judge the raw name.
      }
      // `a[b][api_token]` hides a secret one level down: judge every segment of the key.
      const secret = name.split(/[[\]]+/).some((segment) => SECRET_PARAM.test(segment));
      return secret ? `${rawName}=[redacted]` : pair;
    })
    .join('&');
  return `${url.slice(0, queryStart)}?${query}`;
}

/**
 * pino options for the service. Bodies are never logged; headers and any object that carries a secret by
 * name (provider tokens of every configured provider name included) are censored wherever they appear.
 */
export function loggerOptions(level: string, providerNames: readonly string[] = []): LoggerOptions {
  return {
    level,
    redact: {
      paths: [
        'req.headers.authorization',
        'req.headers.cookie',
        'res.headers["set-cookie"]',
        '*.password',
        '*.current_password',
        '*.api_token',
        '*.token',
        '*.access_token',
        '*.id_token',
        // pino paths have no suffix wildcard: one path per provider the deployment names (PROVIDERS).
        ...providerNames.map((name) => `*.${name}_access_token`),
        '*.password_hash',
      ],
      censor: '[redacted]',
    },
    serializers: {
      req: (request: FastifyRequest) => ({
        method: request.method,
        url: redactUrl(request.url),
        remoteAddress: request.ip,
        // Bounded: a client chooses this header's length, and a log line should not.
        userAgent: request.headers['user-agent']?.slice(0, 256),
      }),
    },
  };
}
