import { alternated, alternationLine, withProcess } from './alternation.js';
import type { BenchDatabase } from './database.js';
import { type LoadOptions, type LoadResult, runLoad, warmThenRun } from './load.js';
import type { Row } from './report.js';
import { type PeakRss, type Service, startBareServer, startService } from './service.js';
import type { Settings } from './settings.js';

export const FORM = { 'content-type': 'application/x-www-form-urlencoded' };
export const LOGIN = { email: 'bench-login@bench.example', password: 'correct horse battery staple' };

/** Seeded addresses in turn (differently cased: the index is on lower(email)): every check finds one. */
export function takenEmails(users: number): () => string {
  let n = 0;
  return () => new URLSearchParams({ email: `Seed-${(n++ % users) + 1}@Bench.example` }).toString();
}

/** The signed-in user of the user/get and login scenarios, registered through the API like a real one. */
async function registerLoginUser(url: string): Promise<string> {
  const response = await fetch(`${url}/v1/auth/register`, {
    method: 'POST',
    body: new URLSearchParams({
      type: 'email',
      email: LOGIN.email,
      username: 'benchlogin',
      gender: '0',
      user_agreement: 'on',
      password: LOGIN.password,
    }),
  });
  const body = (await response.json()) as { data?: { user?: { api_token?: string } } };
  const token = body.data?.user?.api_token;
  if (response.status !== 200 || token === undefined) {
    throw new Error(`register answered ${response.status}: ${JSON.stringify(body)}`);
  }
  return token;
}

/** The hot-path read scenarios and their limit, bare Fastify + the same SELECT as a prepared statement. */
export interface Reads {
  healthz: LoadResult;
  validate: LoadResult;
  userGet: LoadResult;
  /** The judged limit of validate and user/get: the median of the bare route's windows (`windowsPerSecond`). */
  limit: LoadResult;
  /** The bare route's rows of the table, in the order they ran. */
  limitRows: Row[];
  /** Lines under the table: the alternated windows, where they alternated. */
  notes: string[];
}

/** A load of `settings.seconds` on `server`, its CPU time counted. */
export function loadOn(
  settings: Settings,
  server: Service,
  options: Omit<LoadOptions, 'url' | 'serverPid' | 'seconds'>,
): LoadOptions {
  return { ...options, url: server.url, serverPid: server.pid, seconds: settings.seconds };
}

/** validate/email with a taken address (422), 50 connections: the scenario and its limit's load. */
function validateTaken(settings: Settings, server: Service): LoadOptions {
  return loadOn(settings, server, {
    method: 'POST',
    path: '/v1/validate/email',
    headers: FORM,
    body: takenEmails(settings.smallUsers),
    connections: 50,
    expectStatus: 422,
  });
}

/** The service's loads of the read scenarios: healthz, validate (taken), user/get as the signed-in user. */
async function readLoads(settings: Settings, service: Service) {
  const token = await registerLoginUser(service.url);
  return {
    healthz: loadOn(settings, service, { path: '/healthz', connections: 50 }),
    validate: validateTaken(settings, service),
    userGet: loadOn(settings, service, {
      path: '/v1/user/get',
      headers: { authorization: `Bearer ${token}` },
      connections: 50,
    }),
  };
}

/**
 * validate/email and user/get beside their limit, the bare route running its SELECT as a named statement as
 * the service does. Both processes stay up, each warmed on its own load, and their windows alternate
 * (`alternatedReads`); on PGlite the bare route reads a copy of the service's files (`besideService`).
 */
export async function benchReads(
  database: BenchDatabase,
  settings: Settings,
  peaks: PeakRss[],
): Promise<Reads> {
  const bareEnv = await database.besideService();
  return withProcess(
    () => startBareServer(bareEnv, { prepared: true }),
    (bare) =>
      withProcess(
        () => startService(database.env),
        (service) => alternatedReads(settings, bare, service),
        peaks,
      ),
  );
}

/**
 * Bare, validate, user/get, bare, … bare (`alternated`, `rounds` rounds), after each process has warmed up on
 * its own load, as the hashing scenarios alternate with raw argon2: on a shared host the bare route has moved
 * by up to 36 % between a window before the service's and one after it, more than validate's margin.
 */
async function alternatedReads(settings: Settings, bare: Service, service: Service): Promise<Reads> {
  const warm = (options: LoadOptions) => warmThenRun(options, settings.warmupSeconds);
  const loads = await readLoads(settings, service);
  const limitLoad = validateTaken(settings, bare);
  await warm(limitLoad);
  const healthz = await warm(loads.healthz);
  await warm(loads.validate);
  await warm(loads.userGet);
  const { limit, services } = await alternated(
    () => runLoad(limitLoad),
    [() => runLoad(loads.validate), () => runLoad(loads.userGet)],
    settings.rounds,
  );
  const [validate, userGet] = services as [LoadResult, LoadResult];
  const line = (name: string, result: LoadResult) =>
    alternationLine(`${name} ÷ bare Fastify + prepared SELECT`, limit, result, settings.seconds);
  return {
    healthz,
    validate,
    userGet,
    limit,
    limitRows: [
      { scenario: `LIMIT bare Fastify + prepared SELECT, ${settings.rounds + 1} windows`, result: limit },
    ],
    notes: [line('validate/email', validate), line('user/get', userGet)],
  };
}

/**
 * The bare route with its SELECT unnamed, parsed and planned on every call (information): how much of the
 * limit the prepared statement is worth on this database.
 */
export function benchBareUnprepared(database: BenchDatabase, settings: Settings): Promise<LoadResult> {
  return withProcess(
    () => startBareServer(database.env, { prepared: false }),
    (server) => warmThenRun(validateTaken(settings, server), settings.warmupSeconds),
  );
}

/** validate and user/get, each beside the median of the bare route's windows (the hot paths' rows). */
export function readRows(reads: Reads): Row[] {
  const bareName = `bare Fastify + prepared SELECT (median of ${reads.limit.windowsPerSecond?.length})`;
  const baseline = { scenario: bareName, result: reads.limit, metric: 'req/s' as const };
  return [
    { scenario: 'validate/email (taken), 50 conns', result: reads.validate, baseline },
    { scenario: 'user/get (Bearer), 50 conns', result: reads.userGet, baseline },
  ];
}
