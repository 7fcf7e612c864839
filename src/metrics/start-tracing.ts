import type { FastifyPluginCallback } from 'fastify';
import type { TracingConfig } from '../config/tracing.js';
import { noTracing, type Tracing } from '../lib/tracing.js';

/** The server's tracing: the seam every part is given, and what only the server wires (the request spans). */
export interface StartedTracing {
  tracing: Tracing;
  /** Registered first on the Fastify instance; undefined when tracing is off. */
  fastifyPlugin?: FastifyPluginCallback | undefined;
  close(): Promise<void>;
}

const OFF: StartedTracing = { tracing: noTracing, close: async () => {} };

/**
 * Tracing as configured: off (the no-op seam, nothing imported) without OTEL_EXPORTER_OTLP_ENDPOINT; with it,
 * OpenTelemetry loaded by a dynamic import, so that its modules cost a service without tracing nothing.
 */
export async function startTracing(config: TracingConfig): Promise<StartedTracing> {
  const { endpoint } = config;
  if (endpoint === undefined) return OFF;
  const { startOtelTracing } = await import('./otel-tracing.js');
  return startOtelTracing({ ...config, endpoint });
}
