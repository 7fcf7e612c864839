import { Agent, get } from 'node:http';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import type { LoadResult } from './load.js';

function once(url: string, agent: Agent): Promise<number> {
  return new Promise((resolve, reject) => {
    get(url, { agent }, (response) => {
      response.resume();
      response.on('end', () => resolve(response.statusCode ?? 0));
    }).on('error', reject);
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
export async function probe(url: string, rate: number, seconds: number): Promise<LoadResult> {
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
      const status = await once(url, agent).catch(() => 0);
      if (status < 200 || status > 299) failures++;
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
