import { Agent, request } from 'node:http';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { correctedLatency, dueAt, type LatencySummary, requestCount, summarize } from './open-model.js';

/** One request of an open-model run, made when it is due (so it can use what earlier answers taught). */
export interface OpenRequest {
  /** What the request is counted under (`feed`, `login`, …). */
  kind: string;
  method: 'GET' | 'POST';
  path: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** Whether the status is the expected answer; anything else is a failure. */
  expect: (status: number) => boolean;
  /** Given the body of an expected answer (a feed page's next cursor, a like to take back later). */
  answered?: (body: string) => void;
}

export interface KindResult extends LatencySummary {
  failures: number;
}

export interface OpenResult {
  rate: number;
  seconds: number;
  /** Answers (of any status) per second over the whole run, the drain after the last send included. */
  answeredPerSecond: number;
  all: KindResult;
  byKind: Record<string, KindResult>;
  /** Every request's latency, ms, by kind: what a summary over some of the kinds is taken from. */
  latencies: Record<string, number[]>;
  /** The first few failures as `kind status` (0: a connection error or timeout), to say what went wrong. */
  failureSamples: string[];
}

/** No answer within this long counts as a failure (and the latency it had so far is kept). */
const TIMEOUT_MS = 10_000;

function send(base: URL, agent: Agent, item: OpenRequest): Promise<{ status: number; body: string }> {
  return new Promise((resolve) => {
    const headers: Record<string, string | number> = { ...item.headers };
    if (item.body !== undefined) headers['content-length'] = Buffer.byteLength(item.body);
    const sent = request(
      new URL(item.path, base),
      { agent, method: item.method, headers, timeout: TIMEOUT_MS },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () =>
          resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }),
        );
        response.on('error', () => resolve({ status: 0, body: '' }));
      },
    );
    sent.on('timeout', () => sent.destroy(new Error('timeout')));
    sent.on('error', () => resolve({ status: 0, body: '' }));
    sent.end(item.body);
  });
}

/**
 * Sends `rate` requests a second for `seconds`, each at the moment it is due whatever is still unanswered
 * (an open model), over keep-alive connections (up to `maxSockets`; past that a request waits in the agent,
 * and that wait is part of its latency). Latency runs from when a request was due, not from when it left
 * (`correctedLatency`): the generator's own lateness and every queue count, as a user would feel them.
 */
export async function runOpen(
  url: string,
  rate: number,
  seconds: number,
  next: (index: number) => OpenRequest,
  maxSockets = 256,
): Promise<OpenResult> {
  const base = new URL(url);
  const agent = new Agent({ keepAlive: true, maxSockets });
  const count = requestCount(rate, seconds);
  const latencies: Record<string, number[]> = {};
  const failures: Record<string, number> = {};
  const failureSamples: string[] = [];
  const inFlight: Array<Promise<void>> = [];
  const start = performance.now();
  try {
    for (let index = 0; index < count; index++) {
      const wait = start + dueAt(index, rate) - performance.now();
      if (wait > 1) await sleep(wait);
      const item = next(index);
      inFlight.push(
        send(base, agent, item).then(({ status, body }) => {
          const latency = correctedLatency(start, index, rate, performance.now());
          latencies[item.kind] ??= [];
          latencies[item.kind]?.push(latency);
          failures[item.kind] ??= 0;
          if (item.expect(status)) {
            item.answered?.(body);
          } else {
            failures[item.kind] = (failures[item.kind] ?? 0) + 1;
            if (failureSamples.length < 10)
              failureSamples.push(`${item.kind} ${status} ${body.slice(0, 160)}`);
          }
        }),
      );
    }
    await Promise.all(inFlight);
  } finally {
    agent.destroy();
  }
  const elapsed = (performance.now() - start) / 1000;
  const byKind: Record<string, KindResult> = {};
  for (const [kind, values] of Object.entries(latencies)) {
    byKind[kind] = { ...summarize(values), failures: failures[kind] ?? 0 };
  }
  const allFailures = Object.values(failures).reduce((sum, value) => sum + value, 0);
  return {
    rate,
    seconds,
    answeredPerSecond: count / elapsed,
    all: { ...summarize(Object.values(latencies).flat()), failures: allFailures },
    byKind,
    latencies,
    failureSamples,
  };
}

/** The latency and failures of the requests of every kind but `excluded`. */
export function summaryExcept(result: OpenResult, excluded: ReadonlySet<string>): KindResult {
  const kinds = Object.keys(result.latencies).filter((kind) => !excluded.has(kind));
  return {
    ...summarize(kinds.flatMap((kind) => result.latencies[kind] ?? [])),
    failures: kinds.reduce((sum, kind) => sum + (result.byKind[kind]?.failures ?? 0), 0),
  };
}
