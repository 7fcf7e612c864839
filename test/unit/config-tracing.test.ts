import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { configError } from '../helpers/config.js';

describe('tracing configuration', () => {
  it('is off by default, named accounts', () => {
    expect(loadConfig({}).tracing).toEqual({
      endpoint: undefined,
      serviceName: 'accounts',
      // The specification's default sampler: parentbased_always_on.
      sampling: { parentBased: true, ratio: 1 },
    });
  });

  it('takes the collector’s base URL (without a trailing slash) and a service name', () => {
    const config = loadConfig({
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://otel-collector:4318/',
      OTEL_SERVICE_NAME: 'accounts-eu',
    });
    expect(config.tracing).toMatchObject({
      endpoint: 'http://otel-collector:4318',
      serviceName: 'accounts-eu',
    });
  });

  it('refuses an endpoint that is not an http(s) URL, and a service name with a space', () => {
    expect(configError({ OTEL_EXPORTER_OTLP_ENDPOINT: 'grpc://collector:4317' }).variable).toBe(
      'OTEL_EXPORTER_OTLP_ENDPOINT',
    );
    expect(configError({ OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' }).variable).toBe(
      'OTEL_EXPORTER_OTLP_ENDPOINT',
    );
    expect(configError({ OTEL_SERVICE_NAME: 'accounts eu' }).variable).toBe('OTEL_SERVICE_NAME');
  });

  it('reads the specification’s samplers as a ratio, parent-based or not', () => {
    const sampling = (env: Record<string, string>) => loadConfig(env).tracing.sampling;
    expect(sampling({ OTEL_TRACES_SAMPLER: 'always_on' })).toEqual({ parentBased: false, ratio: 1 });
    expect(sampling({ OTEL_TRACES_SAMPLER: 'always_off' })).toEqual({ parentBased: false, ratio: 0 });
    expect(sampling({ OTEL_TRACES_SAMPLER: 'parentbased_always_off' })).toEqual({
      parentBased: true,
      ratio: 0,
    });
    expect(sampling({ OTEL_TRACES_SAMPLER: 'traceidratio', OTEL_TRACES_SAMPLER_ARG: '0.25' })).toEqual({
      parentBased: false,
      ratio: 0.25,
    });
    expect(
      sampling({ OTEL_TRACES_SAMPLER: 'PARENTBASED_TRACEIDRATIO', OTEL_TRACES_SAMPLER_ARG: '.1' }),
    ).toEqual({ parentBased: true, ratio: 0.1 });
    // A ratio sampler without its argument records everything (the specification's default); the argument
    // of a sampler that takes none is not read.
    expect(sampling({ OTEL_TRACES_SAMPLER: 'traceidratio' })).toEqual({ parentBased: false, ratio: 1 });
    expect(sampling({ OTEL_TRACES_SAMPLER: 'always_on', OTEL_TRACES_SAMPLER_ARG: 'x' }).ratio).toBe(1);
  });

  it('refuses a sampler it does not know and a ratio outside 0 to 1, instead of recording everything', () => {
    expect(configError({ OTEL_TRACES_SAMPLER: 'jaeger_remote' })).toMatchObject({
      variable: 'OTEL_TRACES_SAMPLER',
      message: expect.stringContaining('parentbased_traceidratio'),
    });
    for (const value of ['1.5', '-0.1', 'ten', '0.1.2', '1e-3']) {
      expect(
        configError({ OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: value })
          .variable,
      ).toBe('OTEL_TRACES_SAMPLER_ARG');
    }
  });
});
