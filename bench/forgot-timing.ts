import { setTimeout as sleep } from 'node:timers/promises';
import { withProcess } from './alternation.js';
import type { BenchDatabase } from './database.js';
import { startService } from './service.js';

/** Requests of each kind measured (after as many unmeasured), alternated known, unknown, known, … */
const REQUESTS = 200;
/** Between two requests: the known address's mail is made after its answer, and must not delay the next. */
const PAUSE_MS = 10;

export interface ForgotTiming {
  knownMedianMs: number;
  unknownMedianMs: number;
  /** How often one request tells them apart: the share of pairs where the known one was the slower. */
  knownSlowerShare: number;
  summary: string;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[middle] ?? 0)
    : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
}

/** One forgot-password request's time to its whole answer, in ms, on a kept-alive connection. */
async function timeForgot(url: string, email: string): Promise<number> {
  const started = performance.now();
  const response = await fetch(`${url}/v1/auth/password/forgot`, {
    method: 'POST',
    body: new URLSearchParams({ email }),
  });
  await response.text();
  const elapsed = performance.now() - started;
  if (response.status !== 200) throw new Error(`forgot-password answered ${response.status}`);
  return elapsed;
}

/**
 * Whether forgot-password's time tells if an account has the address: one service, one account; REQUESTS
 * requests for its address and as many for unknown ones (a new one each time), alternated one by one on one
 * connection after as many unmeasured, each side's median and their difference (target: under 0.5 ms).
 */
export async function benchForgotTiming(database: BenchDatabase): Promise<ForgotTiming> {
  return withProcess(
    () => startService(database.env),
    async (service) => {
      const known = `forgot-${Date.now().toString(36)}@bench.example`;
      const registered = await fetch(`${service.url}/v1/auth/register`, {
        method: 'POST',
        body: new URLSearchParams({
          type: 'email',
          email: known,
          username: `forgot${Date.now().toString(36)}`,
          gender: '0',
          user_agreement: 'on',
          password: 'correct horse battery staple',
        }),
      });
      if (registered.status !== 200) throw new Error(`register answered ${registered.status}`);
      let n = 0;
      const unknown = () => `nobody-${++n}@bench.example`;
      const times = { known: [] as number[], unknown: [] as number[] };
      for (let round = 0; round < 2 * REQUESTS; round++) {
        const knownMs = await timeForgot(service.url, known);
        await sleep(PAUSE_MS);
        const unknownMs = await timeForgot(service.url, unknown());
        await sleep(PAUSE_MS);
        if (round < REQUESTS) continue;
        times.known.push(knownMs);
        times.unknown.push(unknownMs);
      }
      const knownMedianMs = median(times.known);
      const unknownMedianMs = median(times.unknown);
      const slower = times.known.filter((ms, i) => ms > (times.unknown[i] ?? Number.POSITIVE_INFINITY));
      const knownSlowerShare = slower.length / REQUESTS;
      const difference = knownMedianMs - unknownMedianMs;
      const summary =
        `forgot-password, ${REQUESTS} requests each, alternated: median ${knownMedianMs.toFixed(3)} ms for a known ` +
        `address, ${unknownMedianMs.toFixed(3)} ms for an unknown one, difference ${difference.toFixed(3)} ms ` +
        `(target under 0.5); the known one slower in ${(knownSlowerShare * 100).toFixed(0)} % of pairs ` +
        `(50 % tells nothing). VERDICT forgot timing: ${Math.abs(difference) < 0.5 ? 'PASS' : 'FAIL'}`;
      return { knownMedianMs, unknownMedianMs, knownSlowerShare, summary };
    },
  );
}
