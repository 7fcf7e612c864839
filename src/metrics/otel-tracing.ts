import { FastifyOtelInstrumentation } from '@fastify/otel';
import {
  type Context,
  context,
  propagation,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  TraceFlags,
  trace,
} from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { UndiciInstrumentation } from '@opentelemetry/instrumentation-undici';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import type { FastifyPluginCallback } from 'fastify';
import type { TracingConfig } from '../config/tracing.js';
import type { Tracing } from '../lib/tracing.js';
import { SERVICE_VERSION } from '../version.js';
import { RequestSampler, sampledOut, samplingGate } from './request-sampling.js';

/*
 * OpenTelemetry itself: loaded only by start-tracing.ts's dynamic import, when OTEL_EXPORTER_OTLP_ENDPOINT is
 * set. Nothing else imports this file, so a service without tracing loads none of the SDK, the exporter or
 * @fastify/otel (prom-client loads the API package, a facade of no-ops, for its exemplars either way).
 */

/** An export waits at most this long for the collector: a slow one loses spans, never holds the service. */
const EXPORT_TIMEOUT_MS = 5_000;
/** Probes, not requests of the app: a health check, a readiness check, a scrape. */
const UNTRACED = new Set(['/healthz', '/readyz', '/metrics']);

function untraced(url: string): boolean {
  const query = url.indexOf('?');
  return UNTRACED.has(query === -1 ? url : url.slice(0, query));
}
/** Spans waiting for export are capped: past this a busy service drops spans rather than grow. */
const MAX_QUEUE = 4_096;

/** What OpenTelemetry adds to the server: the seam's implementation, the request spans' plugin, its shutdown. */
export interface OtelTracing {
  tracing: Tracing;
  /** @fastify/otel: a `request` span per request, its parent the caller's `traceparent` when it sends one. */
  fastifyPlugin: FastifyPluginCallback;
  /** Exports what is buffered and stops. */
  close(): Promise<void>;
}

function failed(span: Span, error: unknown): void {
  span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.name : 'error' });
}

/** Where a request keeps the context @fastify/otel made current for it (its request span's). */
const REQUEST_CONTEXT = Symbol('accounts.requestContext');
type WithRequestContext = { [REQUEST_CONTEXT]: Context | null };

/**
 * @fastify/otel's plugin, and the request's context made current again before the handler: a request with a
 * body comes back from parsing it in the socket's async context, not the request's, and without its handler
 * span nothing else puts it back. The context is kept as @fastify/otel's hook leaves it (the hook after it
 * runs inside it) and entered again only when it was lost: a request without a body never left it. The hooks
 * before the handler run as they are (ours read no database there).
 */
function requestSpans(gate: FastifyPluginCallback, plugin: FastifyPluginCallback): FastifyPluginCallback {
  const keepContext: FastifyPluginCallback = (app, _options, done) => {
    app.decorateRequest(REQUEST_CONTEXT, null);
    app.addHook('onRequest', (request, _reply, next) => {
      (request as unknown as WithRequestContext)[REQUEST_CONTEXT] = context.active();
      next();
    });
    app.addHook('preHandler', (request, _reply, next) => {
      const requestContext = (request as unknown as WithRequestContext)[REQUEST_CONTEXT];
      if (requestContext == null || context.active() === requestContext) next();
      else context.with(requestContext, next);
    });
    done();
  };
  const wrapped: FastifyPluginCallback = (app, _options, done) => {
    // In this order: the gate decides, the plugin's onRequest hook opens the span (or not), and keepContext
    // keeps the context they leave.
    app.register(skipOverride(gate));
    app.register(plugin);
    app.register(skipOverride(keepContext));
    done();
  };
  return skipOverride(wrapped);
}

/** As fastify-plugin marks a plugin: its hooks apply to every route, not to a scope of its own. */
function skipOverride(plugin: FastifyPluginCallback): FastifyPluginCallback {
  return Object.assign(plugin, { [Symbol.for('skip-override')]: true });
}

/** The tracer provider (registered process-wide: its context follows async work), the seam and the plugin. */
export function startOtelTracing(config: TracingConfig & { endpoint: string }): OtelTracing {
  const provider = new NodeTracerProvider({
    sampler: new RequestSampler(config.sampling),
    resource: resourceFromAttributes({
      'service.name': config.serviceName,
      'service.version': SERVICE_VERSION,
    }),
    spanProcessors: [
      new BatchSpanProcessor(
        new OTLPTraceExporter({ url: `${config.endpoint}/v1/traces`, timeoutMillis: EXPORT_TIMEOUT_MS }),
        { maxQueueSize: MAX_QUEUE, exportTimeoutMillis: EXPORT_TIMEOUT_MS },
      ),
    ],
  });
  // The W3C trace context propagator and an AsyncLocalStorage context manager, process-wide.
  provider.register();
  // fetch() (PortOne's SDK) gets a client span and sends `traceparent` on.
  const undici = new UndiciInstrumentation();
  undici.setTracerProvider(provider);
  // Hook and handler spans off: a span per hook and per handler of every request cost more than all the rest
  // of tracing and say little beside the request's own (bench: user/get).
  const fastify = new FastifyOtelInstrumentation({
    instrumentHooks: false,
    instrumentHandler: false,
    // A request the gate left out, and a load balancer's health checks and a scraper's polls, which would
    // each be a trace of their own every few seconds. At start this is asked of each route, outside requests.
    ignorePaths: ({ url }) => sampledOut(context.active()) || untraced(url),
  });
  fastify.setTracerProvider(provider);
  const tracer = provider.getTracer('accounts', SERVICE_VERSION);
  const inContext = (ctx: Context) => trace.getSpan(ctx)?.spanContext();
  const tracing: Tracing = {
    enabled: true,
    span: (name, attributes, work) => {
      // Under a parent the sampler left out, a child would be left out too: skip building it. The flag, not
      // isRecording(): a stored traceparent (a delivery from the queue) is a remote parent, never recording
      // here, and its children are sampled as it was. Work with no span around it (a background pass) still
      // asks the sampler for a trace of its own.
      const active = context.active();
      if (sampledOut(active)) return work();
      const parent = trace.getSpan(active);
      if (parent !== undefined && (parent.spanContext().traceFlags & TraceFlags.SAMPLED) === 0) return work();
      return tracer.startActiveSpan(name, { attributes }, async (span) => {
        try {
          return await work();
        } catch (error) {
          failed(span, error);
          throw error;
        } finally {
          span.end();
        }
      });
    },
    ended: (name, attributes, durationMs, error) => {
      // Only inside a recorded span: a statement of a request sampled out costs nothing more, and one of a
      // background pass (the delivery loop's polls) is not a trace of its own.
      const parent = context.active();
      if (trace.getSpan(parent)?.isRecording() !== true) return;
      const end = Date.now();
      // The parent passed on: looking the active context up again costs an async-hooks look-up per statement.
      const startTime = end - durationMs;
      const span = tracer.startSpan(name, { attributes, kind: SpanKind.CLIENT, startTime }, parent);
      if (error !== undefined) failed(span, error);
      span.end(end);
    },
    traceparent: () => {
      const carrier: Record<string, string> = {};
      propagation.inject(context.active(), carrier);
      return carrier.traceparent;
    },
    // Queued work is its own: not a child of (nor left out with) whatever request woke the queue.
    underTraceparent: (traceparent, work) =>
      context.with(
        traceparent == null ? ROOT_CONTEXT : propagation.extract(ROOT_CONTEXT, { traceparent }),
        work,
      ),
    traceId: () => inContext(context.active())?.traceId,
    recording: () => trace.getSpan(context.active())?.isRecording() === true,
  };
  return {
    tracing,
    fastifyPlugin: requestSpans(
      samplingGate(config.sampling, untraced),
      fastify.plugin() as unknown as FastifyPluginCallback,
    ),
    close: async () => {
      undici.disable();
      fastify.disable();
      // Spans a collector that is down or slow cannot take are lost (bounded by EXPORT_TIMEOUT_MS): they
      // never fail the shutdown.
      await provider.shutdown().catch(() => {});
    },
  };
}
