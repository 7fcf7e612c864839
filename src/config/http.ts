import { ConfigError, type Env, integer } from './env.js';

/**
 * How long a client may take. Every one of these is a bound on a resource a slow or hostile client holds
 * (a socket, a file handle, a parser): without them a client that sends one byte a minute keeps its
 * connection for ever, and a few hundred such clients exhaust the process's file handles.
 */
export interface HttpConfig {
  /** The whole request, headers and body, must have arrived within this (408, then the socket is closed). */
  requestTimeoutMs: number;
  /** The headers must have arrived within this (a slowloris client sends them one byte at a time). */
  headersTimeoutMs: number;
  /** An idle keep-alive connection is closed after this. */
  keepAliveTimeoutMs: number;
}

export function parseHttp(env: Env): HttpConfig {
  const requestTimeoutMs = integer(env, 'REQUEST_TIMEOUT_MS', 30_000, 100, 600_000);
  const headersTimeoutMs = integer(
    env,
    'HEADERS_TIMEOUT_MS',
    Math.min(10_000, requestTimeoutMs),
    100,
    600_000,
  );
  if (headersTimeoutMs > requestTimeoutMs) {
    // Node refuses a headers timeout longer than the request timeout: say so at start, naming the variable.
    throw new ConfigError(
      'HEADERS_TIMEOUT_MS',
      `must not be more than REQUEST_TIMEOUT_MS (${requestTimeoutMs})`,
    );
  }
  return {
    requestTimeoutMs,
    headersTimeoutMs,
    keepAliveTimeoutMs: integer(env, 'KEEP_ALIVE_TIMEOUT_MS', 5_000, 100, 600_000),
  };
}
