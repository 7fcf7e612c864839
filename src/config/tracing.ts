import { ConfigError, type Env, httpUrl, raw } from './env.js';

/**
 * Which traces are recorded, as the OpenTelemetry variables name it: `OTEL_TRACES_SAMPLER` and, for the ratio
 * samplers, `OTEL_TRACES_SAMPLER_ARG`. Every sampler the specification defines for these variables is a ratio:
 * `always_on` is 1, `always_off` 0. `parentBased`: a caller's `traceparent` decides, the ratio only for a
 * request that starts a trace.
 */
export interface TraceSampling {
  parentBased: boolean;
  /** The share of traces started here that are recorded, 0 to 1. */
  ratio: number;
}

/**
 * OpenTelemetry traces (docs/tracing.md): on only when OTEL_EXPORTER_OTLP_ENDPOINT is set, the collector's
 * OTLP/HTTP base URL (spans go to `<endpoint>/v1/traces`, as the OpenTelemetry specification says for this
 * variable). OTEL_SERVICE_NAME names the service in every span (default `accounts`).
 */
export interface TracingConfig {
  /** undefined = tracing off: nothing of OpenTelemetry is loaded. */
  endpoint: string | undefined;
  serviceName: string;
  sampling: TraceSampling;
}

const SAMPLERS: Record<string, (ratio: () => number) => TraceSampling> = {
  always_on: () => ({ parentBased: false, ratio: 1 }),
  always_off: () => ({ parentBased: false, ratio: 0 }),
  traceidratio: (ratio) => ({ parentBased: false, ratio: ratio() }),
  parentbased_always_on: () => ({ parentBased: true, ratio: 1 }),
  parentbased_always_off: () => ({ parentBased: true, ratio: 0 }),
  parentbased_traceidratio: (ratio) => ({ parentBased: true, ratio: ratio() }),
};

/**
 * The SDK would log a bad value and fall back to recording everything, which on a busy instance is the costly
 * surprise; a service refuses to start instead, naming the variable.
 */
function parseSampling(env: Env): TraceSampling {
  const name = raw(env, 'OTEL_TRACES_SAMPLER')?.toLowerCase() ?? 'parentbased_always_on';
  const sampler = SAMPLERS[name];
  if (sampler === undefined) {
    throw new ConfigError(
      'OTEL_TRACES_SAMPLER',
      `must be one of ${Object.keys(SAMPLERS).join(', ')} (got "${name}")`,
    );
  }
  return sampler(() => {
    // The specification's default for a ratio sampler without its argument.
    const value = raw(env, 'OTEL_TRACES_SAMPLER_ARG') ?? '1';
    const ratio = /^(0(\.\d+)?|1(\.0+)?|\.\d+)$/.test(value) ? Number(value) : Number.NaN;
    if (Number.isNaN(ratio)) {
      throw new ConfigError(
        'OTEL_TRACES_SAMPLER_ARG',
        `must be a ratio from 0 to 1, such as 0.1 (got "${value}")`,
      );
    }
    return ratio;
  });
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
  return { endpoint, serviceName, sampling: parseSampling(env) };
}
