import { availableParallelism } from 'node:os';
import { type Alternation, alternated, alternationLine, withProcess } from './alternation.js';
import { argon2Limit } from './argon2-limit.js';
import type { BenchDatabase } from './database.js';
import { type LoadOptions, type LoadResult, runLoad, warmThenRun, warmUp, withCurve } from './load.js';
import { probe } from './probe.js';
import { benchBareUnprepared, benchReads, FORM, LOGIN, loadOn, takenEmails } from './reads.js';
import type { Row } from './report.js';
import { type PeakRss, type Service, startBareServer, startService } from './service.js';
import type { Settings } from './settings.js';
import { hotPathVerdicts, type Verdict } from './verdicts.js';

/**
 * Calls the service's hashing pool hands each hashing process at once: the one it hashes and the next
 * (CALLS_PER_CHILD in src/lib/hashing-pool.ts; the bench does not import the service's sources).
 */
const SERVICE_CALLS_PER_HASHING_PROCESS = 2;

export interface HotPathsResult {
  rows: Row[];
  verdicts: Verdict[];
  peakRss: PeakRss;
  /**
   * Lines printed under the table: per hashing scenario its warm-up curve, window by window, and the measured
   * figure after it; then the alternated windows of the service and its argon2 limit.
   */
  notes: string[];
}

/** `login/email warm-up, CPU ms per request by 5 s window: 1.59 1.10 0.90 0.84, then measured: 0.79`. */
function warmupCurve(scenario: string, result: LoadResult, windowSeconds: number): string[] {
  const curve = result.warmupCpuMsPerRequest;
  if (curve === undefined || result.cpuMsPerRequest === undefined) return [];
  const figures = curve.map((ms) => ms.toFixed(2)).join(' ');
  return [
    `${scenario} warm-up, CPU ms per request by ${windowSeconds} s window: ${figures}, then measured: ${result.cpuMsPerRequest.toFixed(2)}`,
  ];
}

/** A new account per request: a fresh address and username each time. */
export function registrations(): () => string {
  const tag = `${process.pid.toString(36)}${Date.now().toString(36)}`;
  let n = 0;
  return () => {
    n++;
    return new URLSearchParams({
      type: 'email',
      email: `reg-${tag}-${n}@bench.example`,
      username: `reg${tag}${n}`,
      gender: '0',
      user_agreement: 'on',
      password: LOGIN.password,
    }).toString();
  };
}

/** A hashing alternation's one service load, with the warm-up curve that preceded it. */
function withCurveOf(
  { limit, services }: Alternation,
  curve: number[],
): { limit: LoadResult; service: LoadResult } {
  const [service] = services;
  if (service === undefined) throw new Error('an alternation of one service load has its result');
  return { limit, service: withCurve(service, curve) };
}

/**
 * The hot-path scenarios, each beside the limit it is judged against, so that drift in what else the machine
 * is doing lands on both: the service's validate and user/get beside bare Fastify running the same SELECT as
 * a prepared statement (`benchReads`: alternated windows, on PGlite over a copy of the files); the
 * service's logins in windows alternated with raw argon2 verify, its registrations alternated with raw argon2
 * hash (`alternated`). Then, for information, the bare route with its SELECT unprepared, raw argon2 with as
 * many calls in flight as the service hands its hashing processes, and the bare Fastify login and sign-up. The database
 * must be migrated and hold `settings.smallUsers` seeded users.
 */
export async function benchHotPaths(database: BenchDatabase, settings: Settings): Promise<HotPathsResult> {
  const peaks: PeakRss[] = [];
  const inFlight = settings.hashInFlight;
  const loginLoad = (server: Service): LoadOptions =>
    loadOn(settings, server, {
      method: 'POST',
      path: '/v1/auth/login/email',
      headers: FORM,
      body: new URLSearchParams(LOGIN).toString(),
      connections: 16,
    });
  const registerLoad = (server: Service): LoadOptions =>
    loadOn(settings, server, {
      method: 'POST',
      path: '/v1/auth/register',
      headers: FORM,
      body: registrations(),
      connections: 16,
    });
  const reads = await benchReads(database, settings, peaks);
  const { healthz, validate, userGet, limit } = reads;
  const bareUnprepared = await benchBareUnprepared(database, settings);

  // Each hashing scenario alternates with its raw argon2 limit on a fresh service, warmed up first
  // (`alternated`): the logins and the verify limit, then the registrations and the hash limit.
  const verifyWindow = () => argon2Limit('verify', inFlight, settings.seconds);
  const hashWindow = () => argon2Limit('hash', inFlight, settings.seconds);
  const { probeIdle, probeDuringLogin, loginAlternation, loginWithProbe } = await withProcess(
    () => startService(database.env),
    async (service) => {
      const validateProbe = () =>
        probe(`${service.url}/v1/validate/email`, settings.probeRate, settings.seconds, {
          form: takenEmails(settings.smallUsers),
          expectStatus: 422,
        });
      // Warm the validate path first: the idle probe should measure a warm process, as the loaded one does.
      await probe(`${service.url}/v1/validate/email`, settings.probeRate, 1, {
        form: takenEmails(settings.smallUsers),
        expectStatus: 422,
      });
      const probeIdle = await validateProbe();
      const login = loginLoad(service);
      // Login throughput alone, as its limit (raw argon2, nothing else running) is measured; then the same
      // flood again with the paced validate probe beside it, for the tail target (its logins are information).
      const curve = await warmUp(login, settings.hashWarmupSeconds);
      const alternation = await alternated(verifyWindow, [() => runLoad(login)], settings.rounds);
      const [loginWithProbe, probeDuringLogin] = await Promise.all([runLoad(login), validateProbe()]);
      const loginAlternation = withCurveOf(alternation, curve);
      return { probeIdle, probeDuringLogin, loginAlternation, loginWithProbe };
    },
    peaks,
  );
  const registerAlternation = await withProcess(
    () => startService(database.env),
    async (service) => {
      const register = registerLoad(service);
      const curve = await warmUp(register, settings.hashWarmupSeconds);
      const alternation = await alternated(hashWindow, [() => runLoad(register)], settings.rounds);
      return withCurveOf(alternation, curve);
    },
    peaks,
  );
  const login = loginAlternation.service;
  const verifyLimit = loginAlternation.limit;
  const register = registerAlternation.service;
  const hashLimit = registerAlternation.limit;
  // For information: raw argon2 with as many calls in flight as the service hands its hashing processes.
  // Unlike the judged limit it keeps every core busy, so the reader sees how far below the machine's hashing
  // capacity the judged limit is.
  const handedOver = inFlight * SERVICE_CALLS_PER_HASHING_PROCESS;
  const verifySaturated = await argon2Limit('verify', handedOver, settings.seconds);
  const hashSaturated = await argon2Limit('hash', handedOver, settings.seconds);
  // For information: the same login and sign-up by a bare Fastify route (read, raw argon2, one write), the
  // least any HTTP service pays besides the hash on this machine, with the same load and warm-up.
  const bareHashing = await withProcess(
    () => startBareServer(database.env, { hashInFlight: inFlight }),
    async (server) => ({
      login: await warmThenRun(loginLoad(server), settings.hashWarmupSeconds),
      register: await warmThenRun(registerLoad(server), settings.hashWarmupSeconds),
    }),
  );

  const peakRss: PeakRss = {
    process: Math.max(...peaks.map((peak) => peak.process)),
    tree: Math.max(...peaks.map((peak) => peak.tree)),
  };
  const bareName = `bare Fastify + ${database.name} prepared SELECT (median of ${limit.windowsPerSecond?.length})`;
  const limitWindows = settings.rounds + 1;
  const verifyName = `argon2id verify (median of ${limitWindows})`;
  const hashName = `argon2id hash (median of ${limitWindows})`;
  const rows: Row[] = [
    { scenario: 'healthz, 50 conns', result: healthz },
    ...reads.limitRows,
    {
      scenario: 'validate/email (taken), 50 conns',
      result: validate,
      baseline: { scenario: bareName, result: limit, metric: 'req/s' },
    },
    {
      scenario: 'user/get (Bearer), 50 conns',
      result: userGet,
      baseline: { scenario: bareName, result: limit, metric: 'req/s' },
    },
    {
      scenario: 'bare Fastify + unprepared SELECT (info)',
      result: bareUnprepared,
      baseline: { scenario: bareName, result: limit, metric: 'req/s' },
    },
    {
      scenario: `LIMIT argon2id verify, ${inFlight} in flight, ${limitWindows} windows`,
      result: verifyLimit,
    },
    {
      scenario: `login/email, 16 conns, ${settings.rounds} windows`,
      result: login,
      baseline: { scenario: verifyName, result: verifyLimit, metric: 'req/s' },
    },
    {
      scenario: `login/email, 16 conns, beside the ${settings.probeRate}/s probe`,
      result: loginWithProbe,
      baseline: { scenario: verifyName, result: verifyLimit, metric: 'req/s' },
    },
    {
      scenario: `LIMIT argon2id hash, ${inFlight} in flight, ${limitWindows} windows`,
      result: hashLimit,
    },
    {
      scenario: `register, 16 conns, ${settings.rounds} windows`,
      result: register,
      baseline: { scenario: hashName, result: hashLimit, metric: 'req/s' },
    },
    {
      scenario: `argon2id verify, ${handedOver} in flight (info)`,
      result: verifySaturated,
      baseline: { scenario: verifyName, result: verifyLimit, metric: 'req/s' },
    },
    {
      scenario: `argon2id hash, ${handedOver} in flight (info)`,
      result: hashSaturated,
      baseline: { scenario: hashName, result: hashLimit, metric: 'req/s' },
    },
    ...besideBare(
      'login',
      'read, argon2, write',
      bareHashing.login,
      [verifyName, verifyLimit],
      ['login/email', login],
    ),
    ...besideBare(
      'sign-up',
      'argon2, one write',
      bareHashing.register,
      [hashName, hashLimit],
      ['register', register],
    ),
    { scenario: `validate probe ${settings.probeRate}/s idle`, result: probeIdle },
    {
      scenario: `validate probe ${settings.probeRate}/s during login`,
      result: probeDuringLogin,
      baseline: { scenario: 'probe idle', result: probeIdle, metric: 'p99' },
    },
  ];

  const verdicts = hotPathVerdicts({
    validate,
    userGet,
    readLimit: limit,
    login,
    verifyLimit,
    register,
    hashLimit,
    probeIdle,
    probeDuringLogin,
    probeRate: settings.probeRate,
    peakRss,
    embedded: database.name === 'pglite',
  });
  const notes = [
    ...warmupCurve('login/email (service)', login, settings.seconds),
    ...warmupCurve('register (service)', register, settings.seconds),
    ...warmupCurve('bare Fastify login', bareHashing.login, settings.seconds),
    ...warmupCurve('bare Fastify sign-up', bareHashing.register, settings.seconds),
    ...reads.notes,
    alternationLine('login/email ÷ argon2 verify', verifyLimit, login, settings.seconds),
    alternationLine('register ÷ argon2 hash', hashLimit, register, settings.seconds),
  ];
  return { rows, verdicts, peakRss, notes };
}

/**
 * Two information rows: the bare Fastify route (what `does`) against its raw argon2 limit, and the service's
 * own scenario against that bare route.
 */
function besideBare(
  what: string,
  does: string,
  bare: LoadResult,
  [limitName, limit]: [string, LoadResult],
  [scenario, service]: [string, LoadResult],
): Row[] {
  const bareName = `bare Fastify ${what}`;
  return [
    {
      scenario: `${bareName}: ${does} (info)`,
      result: bare,
      baseline: { scenario: limitName, result: limit, metric: 'req/s' },
    },
    {
      scenario: `${scenario} (info)`,
      result: service,
      baseline: { scenario: bareName, result: bare, metric: 'req/s' },
    },
  ];
}

/** Default: the service's own default HASH_CONCURRENCY (one hash per core). */
export function defaultHashInFlight(): number {
  return availableParallelism();
}
