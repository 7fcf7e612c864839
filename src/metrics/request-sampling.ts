import {
  type Attributes,
  type Context,
  context,
  createContextKey,
  isSpanContextValid,
  type Link,
  propagation,
  ROOT_CONTEXT,
  type SpanContext,
  type SpanKind,
  TraceFlags,
  trace,
} from '@opentelemetry/api';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  ParentBasedSampler,
  type Sampler,
  SamplingDecision,
  type SamplingResult,
  TraceIdRatioBasedSampler,
} from '@opentelemetry/sdk-trace-node';
import type { FastifyPluginCallback } from 'fastify';
import type { TraceSampling } from '../config/tracing.js';

/*
 * Sampling decided at the door. @fastify/otel would start a span for every request and let the sampler leave
 * it unrecorded: ids, the sampler, attributes and a context for a span nobody sees, which cost a cheap request
 * more than recording one in ten of them (docs/tracing.md). Here a hook before it decides, from the caller's
 * `traceparent` and the configured sampler, and puts the decision in the request's context: a request left
 * out gets no request span at all, only its caller's trace (when it sent one) to pass on; a request kept is
 * recorded whatever the sampler would say of the span's new trace id, so the decision is made once.
 */

/** The door's decision, in the request's context: true recorded, false left out, absent outside a request. */
const REQUEST_SAMPLED = createContextKey('accounts.request-sampled');

/** Whether the work of `ctx` belongs to a request the door left out: it records nothing, not even a new trace. */
export function sampledOut(ctx: Context): boolean {
  return ctx.getValue(REQUEST_SAMPLED) === false;
}

/** The sampler the specification's variables describe, for spans outside requests (a background pass). */
function configuredSampler({ parentBased, ratio }: TraceSampling): Sampler {
  const root =
    ratio >= 1
      ? new AlwaysOnSampler()
      : ratio <= 0
        ? new AlwaysOffSampler()
        : new TraceIdRatioBasedSampler(ratio);
  return parentBased ? new ParentBasedSampler({ root }) : root;
}

/** Whether a request is recorded: its caller's choice under a parent-based sampler, else the ratio. */
export function requestDecision(sampling: TraceSampling, random: () => number = Math.random) {
  const ofTraceId = new TraceIdRatioBasedSampler(sampling.ratio);
  return (parent: SpanContext | undefined): boolean => {
    if (parent !== undefined && sampling.parentBased) return (parent.traceFlags & TraceFlags.SAMPLED) !== 0;
    if (sampling.ratio >= 1) return true;
    if (sampling.ratio <= 0) return false;
    // The caller's trace id decides as it would in any service with the same ratio (consistent sampling);
    // a trace that starts here has no id yet, and a random one would decide with the same odds.
    if (parent !== undefined) {
      return (
        ofTraceId.shouldSample(ROOT_CONTEXT, parent.traceId).decision === SamplingDecision.RECORD_AND_SAMPLED
      );
    }
    return random() < sampling.ratio;
  };
}

/** The provider's sampler: the door's decision inside a request, the configured sampler outside one. */
export class RequestSampler implements Sampler {
  private readonly configured: Sampler;

  constructor(sampling: TraceSampling) {
    this.configured = configuredSampler(sampling);
  }

  shouldSample(
    ctx: Context,
    traceId: string,
    name: string,
    kind: SpanKind,
    attributes: Attributes,
    links: Link[],
  ): SamplingResult {
    const decided = ctx.getValue(REQUEST_SAMPLED);
    if (decided === true) return { decision: SamplingDecision.RECORD_AND_SAMPLED };
    if (decided === false) return { decision: SamplingDecision.NOT_RECORD };
    return this.configured.shouldSample(ctx, traceId, name, kind, attributes, links);
  }

  toString(): string {
    return `RequestSampler{${this.configured.toString()}}`;
  }
}

/**
 * The hook that decides, registered before @fastify/otel's: it runs the rest of the request in a context that
 * holds the decision (and the caller's span, when it sent a `traceparent`). Fastify calls the next hook inside
 * it, as @fastify/otel's own hook relies on for its span's context.
 */
export function samplingGate(
  sampling: TraceSampling,
  untraced: (url: string) => boolean,
): FastifyPluginCallback {
  const decide = requestDecision(sampling);
  const recordedRoot = ROOT_CONTEXT.setValue(REQUEST_SAMPLED, true);
  const skippedRoot = ROOT_CONTEXT.setValue(REQUEST_SAMPLED, false);
  return (app, _options, done) => {
    app.addHook('onRequest', (request, _reply, next) => {
      if (untraced(request.url)) {
        next();
        return;
      }
      const caller =
        request.headers.traceparent === undefined
          ? ROOT_CONTEXT
          : propagation.extract(ROOT_CONTEXT, request.headers);
      const parent = trace.getSpanContext(caller);
      const valid = parent !== undefined && isSpanContextValid(parent) ? parent : undefined;
      const recorded = decide(valid);
      if (valid === undefined) context.with(recorded ? recordedRoot : skippedRoot, next);
      else context.with(caller.setValue(REQUEST_SAMPLED, recorded), next);
    });
    done();
  };
}
