import { ConfigError, type Env, integer, raw } from './env.js';

/**
 * `/metrics` (Prometheus): on its own port when `METRICS_PORT` is set (served only there, so a firewall or the
 * load balancer keeps it off the public internet), on the main port otherwise. `METRICS_TOKEN`, when set,
 * is the bearer token a scraper must send.
 */
export interface MetricsConfig {
  /** undefined = /metrics on the main port. */
  port: number | undefined;
  /** undefined = no token asked. */
  token: string | undefined;
}

export function parseMetrics(env: Env): MetricsConfig {
  const port = raw(env, 'METRICS_PORT') === undefined ? undefined : integer(env, 'METRICS_PORT', 0, 0, 65535);
  const token = raw(env, 'METRICS_TOKEN');
  if (token !== undefined && !/^[\x21-\x7e]{16,}$/.test(token)) {
    // Never echo the value: it is a secret.
    throw new ConfigError('METRICS_TOKEN', 'must be at least 16 printable characters without spaces');
  }
  return { port, token };
}
