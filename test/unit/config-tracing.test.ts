import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { configError } from '../helpers/config.js';

describe('tracing configuration', () => {
  it('is off by default, named accounts', () => {
    expect(loadConfig({}).tracing).toEqual({ endpoint: undefined, serviceName: 'accounts' });
  });

  it('takes the collector’s base URL (without a trailing slash) and a service name', () => {
    const config = loadConfig({
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://otel-collector:4318/',
      OTEL_SERVICE_NAME: 'accounts-eu',
    });
    expect(config.tracing).toEqual({ endpoint: 'http://otel-collector:4318', serviceName: 'accounts-eu' });
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
});
