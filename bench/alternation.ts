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

/** The middle value (the mean of the two middle ones for an even count): one odd window cannot move it. */
export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  const upper = sorted[middle] as number;
  return sorted.length % 2 === 1 ? upper : ((sorted[middle - 1] as number) + upper) / 2;
}

/** How far apart the windows are: (highest − lowest) ÷ median, in %. */
export function spreadPercent(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  return ((Math.max(...values) - Math.min(...values)) / median(values)) * 100;
}

/**
 * Several windows of one load as one result: req/s, latencies and CPU per request each the median of the
 * windows (a window that a neighbour on the host spoiled moves a mean, not a median), failures added up.
 */
export function medianOf(results: LoadResult[]): LoadResult {
  const middle = (pick: (result: LoadResult) => number) => median(results.map(pick));
  const cpu = results.every((result) => result.cpuMsPerRequest !== undefined)
    ? { cpuMsPerRequest: middle((result) => result.cpuMsPerRequest ?? 0) }
    : {};
  return {
    requestsPerSecond: middle((result) => result.requestsPerSecond),
    p50: middle((result) => result.p50),
    p99: middle((result) => result.p99),
    failures: results.reduce((sum, result) => sum + result.failures, 0),
    windowsPerSecond: results.map((result) => result.requestsPerSecond),
    ...cpu,
  };
}

/** A limit and the service's loads judged against it, each the median of its alternated windows. */
export interface Alternation {
  limit: LoadResult;
  /** One result per service load, in the order they were given. */
  services: LoadResult[];
}

/**
 * The service's loads and their limit in turn, the limit first and last (L S L S … L; with two service loads
 * L S₁ S₂ L S₁ S₂ … L): `rounds` windows of each service load, one more of the limit. On a shared host the
 * machine's speed can move by 40 % from one 5 s window to the next and by a third within one run
 * (docs/performance.md). Windows side by side see the same machine, and a drift that runs one way through the
 * alternation cancels: the limit's windows sit, in the middle, at the same moment as the service's. Each side
 * is the median of its windows, so that one window spoiled by a neighbour on the host does not move it. Whichever side is not measured is up and idle; each result keeps its windows' req/s
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
  return { limit: medianOf(limits), services: services.map(medianOf) };
}

/**
 * `login/email ÷ argon2 verify, alternated 5 s windows, req/s: limit 264 268 272 273 (median 270, spread 3 %),
 * service 239 245 248 (median 245, spread 4 %)`.
 */
export function alternationLine(
  name: string,
  limit: LoadResult,
  service: LoadResult,
  seconds: number,
): string {
  const figures = (result: LoadResult) => {
    const windows = result.windowsPerSecond ?? [];
    const each = windows.map((perSecond) => perSecond.toFixed(0)).join(' ');
    return `${each} (median ${median(windows).toFixed(0)}, spread ${spreadPercent(windows).toFixed(0)} %)`;
  };
  return `${name}, alternated ${seconds} s windows, req/s: limit ${figures(limit)}, service ${figures(service)}`;
}
