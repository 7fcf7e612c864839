import type { LoadResult } from './load.js';
import type { PeakRss, Service } from './service.js';

/** Runs `work` against a freshly started process and stops it, keeping its peak RSS. */
export async function withProcess<T>(
  start: () => Promise<Service>,
  work: (service: Service) => Promise<T>,
  peaks?: PeakRss[],
): Promise<T> {
  const service = await start();
  try {
    return await work(service);
  } finally {
    const peak = service.peakRss();
    if (peak && peaks) peaks.push(peak);
    await service.stop();
  }
}

/** The mean of several runs of one load: req/s, latencies and CPU per request averaged, failures added up. */
export function meanOf(results: LoadResult[]): LoadResult {
  const average = (pick: (result: LoadResult) => number) =>
    results.reduce((sum, result) => sum + pick(result), 0) / results.length;
  const cpu = results.every((result) => result.cpuMsPerRequest !== undefined)
    ? { cpuMsPerRequest: average((result) => result.cpuMsPerRequest ?? 0) }
    : {};
  return {
    requestsPerSecond: average((result) => result.requestsPerSecond),
    p50: average((result) => result.p50),
    p99: average((result) => result.p99),
    failures: results.reduce((sum, result) => sum + result.failures, 0),
    ...cpu,
  };
}

/** A limit and the service's loads judged against it, each the mean of its alternated windows. */
export interface Alternation {
  limit: LoadResult;
  /** One result per service load, in the order they were given. */
  services: LoadResult[];
}

/**
 * The service's loads and their limit in turn, the limit first and last (L S L S … L; with two service loads
 * L S₁ S₂ L S₁ S₂ … L): `rounds` windows of each service load, one more of the limit. On a shared host the
 * machine's speed can move by 40 % from one 5 s window to the next and by a third within one run
 * (docs/performance.md). Windows side by side see the same machine, and a drift
 * that runs one way through the alternation cancels: the limit's windows sit, on average, at the same moment
 * as the service's. Whichever side is not measured is up and idle; each result keeps its windows' req/s
 * (`windowsPerSecond`).
 */
export async function alternated(
  limitWindow: () => Promise<LoadResult>,
  serviceWindows: ReadonlyArray<() => Promise<LoadResult>>,
  rounds: number,
): Promise<Alternation> {
  const limits = [await limitWindow()];
  const services: LoadResult[][] = serviceWindows.map(() => []);
  for (let round = 0; round < rounds; round++) {
    for (const [index, serviceWindow] of serviceWindows.entries()) {
      services[index]?.push(await serviceWindow());
    }
    limits.push(await limitWindow());
  }
  const windows = (results: LoadResult[]) => results.map((result) => result.requestsPerSecond);
  return {
    limit: { ...meanOf(limits), windowsPerSecond: windows(limits) },
    services: services.map((results) => ({ ...meanOf(results), windowsPerSecond: windows(results) })),
  };
}

/** `login/email ÷ argon2 verify, alternated 5 s windows, req/s: limit 264 268 272 273, service 239 245 248`. */
export function alternationLine(
  name: string,
  limit: LoadResult,
  service: LoadResult,
  seconds: number,
): string {
  const figures = (result: LoadResult) =>
    (result.windowsPerSecond ?? []).map((perSecond) => perSecond.toFixed(0)).join(' ');
  return `${name}, alternated ${seconds} s windows, req/s: limit ${figures(limit)}, service ${figures(service)}`;
}
