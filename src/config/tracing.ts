import { ConfigError, type Env, httpUrl, raw } from './env.js';

/**
 * OpenTelemetry traces (docs/tracing.md): on only when OTEL_EXPORTER_OTLP_ENDPOINT is set, the collector's
 * OTLP/HTTP base URL (spans go to `<endpoint>/v1/traces`, as the OpenTelemetry specification says for this
 * variable). OTEL_SERVICE_NAME names the service in every span (default `accounts`).
 */
export interface TracingConfig {
  /** undefined = tracing off: nothing of OpenTelemetry is loaded. */
  endpoint: string | undefined;
  serviceName: string;
}

export function parseTracing(env: Env): TracingConfig {
  const endpoint = httpUrl(env, 'OTEL_EXPORTER_OTLP_ENDPOINT');
  const serviceName = raw(env, 'OTEL_SERVICE_NAME') ?? 'accounts';
  if (!/^[\x21-\x7e]{1,100}$/.test(serviceName)) {
    throw new ConfigError(
      'OTEL_SERVICE_NAME',
      `must be 1 to 100 printable characters without spaces (got "${serviceName}")`,
    );
  }
  return { endpoint, serviceName };
}
