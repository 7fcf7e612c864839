import Fastify, { type FastifyInstance } from 'fastify';
import { type DestinationStream, destination } from 'pino';
import type { Config } from '../config.js';
import { connectionOptions } from '../http/connections.js';
import { clientErrorHandler, frameworkErrorHandler } from '../http/framework-errors.js';
import { AccessLog, loggerOptions } from '../http/logging.js';
import { parsePhpStyle } from '../http/params.js';
import { requestId } from '../http/server-setup.js';
import { noTracing, type Tracing } from '../lib/tracing.js';

/** Lines are written in batches of about this many bytes (one write instead of one per request)… */
const LOG_BATCH_BYTES = 8192;
/** …or when the oldest buffered line is this old, whichever comes first. */
const LOG_FLUSH_MS = 100;

/**
 * Where log lines go: the caller's stream (tests), or stdout written asynchronously and in batches — a request
 * never waits for the pipe, and a busy service makes one write per few dozen lines instead of a system call
 * per request (docs/performance.md). A quiet one shows a line within LOG_FLUSH_MS; pino writes what is
 * buffered when the process exits. Nothing when logging is silent.
 */
function logDestination(level: Config['logLevel'], stream: DestinationStream | undefined) {
  if (stream !== undefined) return { stream };
  if (level === 'silent') return {};
  return {
    stream: destination({
      dest: 1,
      sync: false,
      minLength: LOG_BATCH_BYTES,
      periodicFlush: LOG_FLUSH_MS,
    }),
  };
}

/** The `trace_id` of the current span, for a log line; nothing outside a span. */
function traceOf(tracing: Tracing): object {
  const traceId = tracing.traceId();
  return traceId === undefined ? {} : { trace_id: traceId };
}

/**
 * The bare Fastify instance: its logger (to `logStream` when given), request ids, body and connection
 * limits, the router's parsing and the framework's own errors. Nothing registered on it yet.
 */
export function createInstance(
  config: Config,
  logStream?: DestinationStream,
  tracing: Tracing = noTracing,
): FastifyInstance {
  return Fastify({
    logger: {
      ...loggerOptions(config.logLevel, config.providers.names),
      ...logDestination(config.logLevel, logStream),
      // With tracing on, each line names the trace it was written in (a log search finds the trace).
      ...(tracing.enabled ? { mixin: () => traceOf(tracing) } : {}),
    },
    // One access line per request instead of Fastify's two.
    logController: new AccessLog(),
    genReqId: requestId,
    bodyLimit: config.bodyLimitBytes,
    trustProxy: config.trustProxy,
    return503OnClosing: true,
    forceCloseConnections: 'idle',
    ...connectionOptions(config.http),
    // `__proto__` and `constructor.prototype` keys in JSON are dropped like any other unknown field.
    onProtoPoisoning: 'remove',
    onConstructorPoisoning: 'remove',
    frameworkErrors: frameworkErrorHandler,
    clientErrorHandler,
    routerOptions: {
      ignoreTrailingSlash: true,
      ignoreDuplicateSlashes: true,
      querystringParser: (query) => parsePhpStyle(query),
    },
  });
}
