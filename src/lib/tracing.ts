/**
 * The tracing seam: what the code asks of tracing, with a no-op default, so nothing of OpenTelemetry is loaded
 * unless OTEL_EXPORTER_OTLP_ENDPOINT is set (metrics/start-tracing.ts builds the real one, by dynamic import).
 *
 * To trace a new sender (an SMS gateway, a push provider), take a `Tracing` in its constructor (from
 * ServiceDeps' `tracing`, `noTracing` when absent) and wrap each outgoing call:
 *
 *   await this.tracing.span('sms send', { 'sms.provider': 'x' }, () => this.post(message));
 *
 * and, when the receiver is HTTP and may be traced too, send `traceparent: this.tracing.traceparent()` inside
 * the span (fetch() carries it on its own when tracing is on). Work that runs later from a queue runs under the
 * traceparent its request stored (`underTraceparent`), as webhook deliveries do. docs/tracing.md lists the spans.
 */

/** Span attributes: OpenTelemetry's semantic names where one exists (`db.system.name`, `http.response.status_code`). */
export type SpanAttributes = Record<string, string | number | boolean>;

export interface Tracing {
  /** Whether spans are recorded at all: false for `noTracing`. */
  readonly enabled: boolean;
  /** Runs `work` inside a span named `name`, ended as it settles; a rejection marks the span an error. */
  span<T>(name: string, attributes: SpanAttributes, work: () => Promise<T>): Promise<T>;
  /**
   * A span for work already done, which took `durationMs` and ended now: for what is reported as it ends
   * (the database layer's statements, timed at the pool), a child of the span current where it is reported;
   * nothing outside a recorded span.
   */
  ended(name: string, attributes: SpanAttributes, durationMs: number, error?: unknown): void;
  /** The current span as a W3C `traceparent` header value; undefined outside any span. */
  traceparent(): string | undefined;
  /**
   * Runs `work` with the span of a stored `traceparent` as its parent; none given, as work of its own, apart
   * from the request or pass that happens to run it.
   */
  underTraceparent<T>(traceparent: string | null | undefined, work: () => T): T;
  /**
   * The current trace id (32 hex digits), for log lines: undefined outside any span, and in a request the
   * sampler left out that its caller sent no trace for.
   */
  traceId(): string | undefined;
  /**
   * Whether the current span is recorded: false outside any span, when tracing is off, and in a request the
   * sampler left out, where timing a statement would only be thrown away.
   */
  recording(): boolean;
}

/** Tracing off: every call runs the work as it is, nothing recorded, nothing allocated. */
export const noTracing: Tracing = {
  enabled: false,
  span: (_name, _attributes, work) => work(),
  ended: () => {},
  traceparent: () => undefined,
  underTraceparent: (_traceparent, work) => work(),
  traceId: () => undefined,
  recording: () => false,
};

let ambient: Tracing = noTracing;

/**
 * The process's tracing for what is written from everywhere: the account events, whose INSERT is built in a
 * dozen statements of as many modules. Threading a Tracing through each for one column would touch them all;
 * OpenTelemetry's own context is process-wide anyway. Set once by the server at start.
 */
export function useAmbientTracing(tracing: Tracing): void {
  ambient = tracing;
}

/** The current request's `traceparent` to store with an event (null when tracing is off or outside a request). */
export function ambientTraceparent(): string | null {
  return ambient.traceparent() ?? null;
}
