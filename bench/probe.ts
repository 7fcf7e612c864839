import { Agent, request } from 'node:http';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import type { LoadResult } from './load.js';

/** What the probe sends: a GET by default, or a POST of a form (e.g. a validate/email check). */
export interface ProbeRequest {
  form?: () => string;
  expectStatus?: number;
}

function once(url: string, agent: Agent, form: string | undefined): Promise<number> {
  return new Promise((resolve, reject) => {
    const headers =
      form === undefined
        ? {}
        : { 'content-type': 'application/x-www-form-urlencoded', 'content-length': Buffer.byteLength(form) };
    const sent = request(url, { agent, method: form === undefined ? 'GET' : 'POST', headers }, (response) => {
      response.resume();
      response.on('end', () => resolve(response.statusCode ?? 0));
    });
    sent.on('error', reject);
    sent.end(form);
  });
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] ?? 0;
}

/**
 * A paced probe: one keep-alive connection, a request every 1/rate s, each timed to the microsecond
 * (autocannon's histogram has whole milliseconds, and an idle healthz answers in well under one). Each is
 * timed from when it was sent: timing from when it was due would add this process's own timer lateness (it
 * is generating the login load at the same time) to the server's.
 */
export async function probe(
  url: string,
  rate: number,
  seconds: number,
  what: ProbeRequest = {},
): Promise<LoadResult> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const interval = 1000 / rate;
  const count = Math.round(rate * seconds);
  const latencies: number[] = [];
  let failures = 0;
  const start = performance.now();
  try {
    for (let i = 0; i < count; i++) {
      const due = start + i * interval;
      const wait = due - performance.now();
      if (wait > 0) await sleep(wait);
      const sent = performance.now();
      const status = await once(url, agent, what.form?.()).catch(() => 0);
      const expected =
        what.expectStatus === undefined ? status >= 200 && status <= 299 : status === what.expectStatus;
      if (!expected) failures++;
      latencies.push(performance.now() - sent);
    }
  } finally {
    agent.destroy();
  }
  const elapsed = (performance.now() - start) / 1000;
  latencies.sort((a, b) => a - b);
  return {
    requestsPerSecond: count / elapsed,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    failures,
  };
}
