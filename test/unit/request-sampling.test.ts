import { ROOT_CONTEXT, type SpanContext, SpanKind, TraceFlags } from '@opentelemetry/api';
import { SamplingDecision, TraceIdRatioBasedSampler } from '@opentelemetry/sdk-trace-node';
import { describe, expect, it } from 'vitest';
import { RequestSampler, requestDecision } from '../../src/metrics/request-sampling.js';

const caller = (traceFlags: number, traceId = '4bf92f3577b34da6a3ce929d0e0e4736'): SpanContext => ({
  traceId,
  spanId: '00f067aa0ba902b7',
  traceFlags,
  isRemote: true,
});
const SAMPLED = caller(TraceFlags.SAMPLED);
const UNSAMPLED = caller(TraceFlags.NONE);
const neverAsked = () => {
  throw new Error('no random number is needed for this decision');
};

describe('the decision at the door', () => {
  it('follows the caller under a parent-based sampler, whatever the ratio', () => {
    for (const ratio of [0, 0.1, 1]) {
      const decide = requestDecision({ parentBased: true, ratio }, neverAsked);
      expect([decide(SAMPLED), decide(UNSAMPLED)]).toEqual([true, false]);
    }
  });

  it('records a trace that starts here as often as the ratio says', () => {
    const draws = [0.05, 0.1, 0.5, 0.0999];
    const decide = requestDecision({ parentBased: true, ratio: 0.1 }, () => draws.shift() ?? 1);
    expect([decide(undefined), decide(undefined), decide(undefined), decide(undefined)]).toEqual([
      true,
      false,
      false,
      true,
    ]);
    expect(requestDecision({ parentBased: true, ratio: 1 }, neverAsked)(undefined)).toBe(true);
    expect(requestDecision({ parentBased: false, ratio: 0 }, neverAsked)(undefined)).toBe(false);
  });

  it('decides a caller’s trace by its id when the sampler is not parent-based, as any SDK with the ratio would', () => {
    const decide = requestDecision({ parentBased: false, ratio: 0.5 }, neverAsked);
    const sdk = new TraceIdRatioBasedSampler(0.5);
    const ids = [
      '00000000000000000000000000000000',
      '000000000000000000000000ffffffff',
      'fedcba98765432100123456789abcdef',
    ];
    const expected = ids.map(
      (id) => sdk.shouldSample(ROOT_CONTEXT, id).decision === SamplingDecision.RECORD_AND_SAMPLED,
    );
    expect(expected).toContain(true);
    expect(expected).toContain(false);
    expect(ids.map((id) => decide(caller(TraceFlags.NONE, id)))).toEqual(expected);
    // always_on and always_off ignore the caller's choice.
    expect(requestDecision({ parentBased: false, ratio: 1 }, neverAsked)(UNSAMPLED)).toBe(true);
    expect(requestDecision({ parentBased: false, ratio: 0 }, neverAsked)(SAMPLED)).toBe(false);
  });
});

describe('the provider’s sampler outside a request', () => {
  const ask = (sampler: RequestSampler) =>
    sampler.shouldSample(
      ROOT_CONTEXT,
      '4bf92f3577b34da6a3ce929d0e0e4736',
      'webhook deliver',
      SpanKind.INTERNAL,
      {},
      [],
    ).decision;

  it('is the configured sampler: a background pass starts a trace as the ratio says', () => {
    expect(ask(new RequestSampler({ parentBased: true, ratio: 1 }))).toBe(
      SamplingDecision.RECORD_AND_SAMPLED,
    );
    expect(ask(new RequestSampler({ parentBased: true, ratio: 0 }))).toBe(SamplingDecision.NOT_RECORD);
    expect(String(new RequestSampler({ parentBased: true, ratio: 0.1 }))).toMatch(/ParentBased.*0\.1/);
  });
});
