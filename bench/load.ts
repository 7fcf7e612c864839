import autocannon from 'autocannon';
import { cpuMs } from './proc.js';

/** One bounded load run against the service. */
export interface LoadOptions {
  url: string;
  path: string;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  /** A fixed body, or one per request (e.g. a fresh address each time). */
  body?: string | (() => string);
  connections: number;
  seconds: number;
  /** The status every answer must have (default: any 2xx); `validate/email (taken)` expects 422. */
  expectStatus?: number;
  /** The server's pid: its CPU time over the run, divided by the answers, is the CPU cost of one request. */
  serverPid?: number;
}

export interface LoadResult {
  requestsPerSecond: number;
  p50: number;
  p99: number;
  /** Responses that were not 2xx plus connection errors and timeouts: any of these spoils the run. */
  failures: number;
  /** Server CPU time (user + system) per answered request, ms; when the server's pid was given. */
  cpuMsPerRequest?: number;
  /**
   * The unrecorded warm-up before this run, window by window (`warmThenRun`): the server's CPU time per
   * request in each, so a reader sees whether the curve had flattened before the measurement began.
   */
  warmupCpuMsPerRequest?: number[];
  /**
   * When the figure is the median of several windows (bench/alternation.ts, `medianOf`): each window's
   * requests per second, in the order they ran.
   */
  windowsPerSecond?: number[];
}

export async function runLoad(options: LoadOptions): Promise<LoadResult> {
  const { body } = options;
  const request: autocannon.Request = {
    method: options.method ?? 'GET',
    path: options.path,
    headers: options.headers,
  };
  if (typeof body === 'string') request.body = body;
  if (typeof body === 'function') request.setupRequest = (req) => ({ ...req, body: body() });
  const cpuBefore = options.serverPid === undefined ? undefined : cpuMs(options.serverPid);
  const result = await autocannon({
    url: options.url,
    connections: options.connections,
    duration: options.seconds,
    requests: [request],
  });
  const cpuAfter = options.serverPid === undefined ? undefined : cpuMs(options.serverPid);
  const answered = result.requests.total;
  const expected = options.expectStatus;
  const unexpected =
    expected === undefined
      ? result.non2xx
      : answered - (result.statusCodeStats?.[`${expected}` as `${number}`]?.count ?? 0);
  return {
    // The mean of the per-second samples equals total answered / duration and is what autocannon reports.
    requestsPerSecond: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    failures: unexpected + result.errors + result.timeouts,
    ...(cpuBefore !== undefined && cpuAfter !== undefined && answered > 0
      ? { cpuMsPerRequest: (cpuAfter - cpuBefore) / answered }
      : {}),
  };
}

/**
 * Unrecorded load, so the JIT and the connection pools are warm when a measurement starts. It runs in windows
 * as long as the measurement (the last one shorter if need be) and returns each window's CPU time per request:
 * the warm-up curve the measurement sits at the end of.
 */
export async function warmUp(options: LoadOptions, warmupSeconds: number): Promise<number[]> {
  const curve: number[] = [];
  for (let left = warmupSeconds; left > 0; left -= options.seconds) {
    const window = await runLoad({ ...options, seconds: Math.min(left, options.seconds) });
    if (window.cpuMsPerRequest !== undefined) curve.push(window.cpuMsPerRequest);
  }
  return curve;
}

/** `warmUp`, then one measured run that keeps the curve. */
export async function warmThenRun(options: LoadOptions, warmupSeconds: number): Promise<LoadResult> {
  const curve = await warmUp(options, warmupSeconds);
  const result = await runLoad(options);
  return withCurve(result, curve);
}

export function withCurve(result: LoadResult, curve: number[]): LoadResult {
  return curve.length > 0 ? { ...result, warmupCpuMsPerRequest: curve } : result;
}
