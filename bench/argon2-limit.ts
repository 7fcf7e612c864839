import { performance } from 'node:perf_hooks';
import { hash, verify } from '@node-rs/argon2';
import type { LoadResult } from './load.js';

/** The service's default cost (src/config.ts: ARGON2_MEMORY_KIB, ARGON2_TIME_COST, ARGON2_PARALLELISM). */
export const SERVICE_ARGON2 = { algorithm: 2, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

/**
 * The login and register limit: raw `@node-rs/argon2` verify (or hash) with the service's parameters, `inFlight`
 * calls at a time for `seconds`, nothing else — no HTTP, no database. What the machine can hash is the most
 * logins or registrations per second the service could ever answer.
 *
 * Its CPU time per hash is this process's (nothing else of the bench runs meanwhile): with req/s it tells how
 * busy the cores were. A lane starts its next call only after its last one's promise has resolved on the
 * event loop, so the cores idle a little between two hashes (6-11 % at two in flight on two cores,
 * docs/performance.md); more calls in flight than cores keep them busy.
 */
export async function argon2Limit(
  operation: 'verify' | 'hash',
  inFlight: number,
  seconds: number,
): Promise<LoadResult> {
  const password = 'correct horse battery staple';
  const stored = await hash(password, SERVICE_ARGON2);
  const once = () => (operation === 'verify' ? verify(stored, password) : hash(password, SERVICE_ARGON2));
  const deadline = performance.now() + seconds * 1000;
  const latencies: number[] = [];
  const started = performance.now();
  const cpuBefore = process.cpuUsage();
  const lane = async () => {
    while (performance.now() < deadline) {
      const sent = performance.now();
      await once();
      latencies.push(performance.now() - sent);
    }
  };
  await Promise.all(Array.from({ length: inFlight }, lane));
  const elapsed = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
  latencies.sort((a, b) => a - b);
  const at = (p: number) =>
    latencies[Math.min(latencies.length - 1, Math.floor((latencies.length * p) / 100))] ?? 0;
  return {
    requestsPerSecond: latencies.length / elapsed,
    p50: at(50),
    p99: at(99),
    failures: 0,
    cpuMsPerRequest: (cpu.user + cpu.system) / 1000 / Math.max(1, latencies.length),
  };
}
