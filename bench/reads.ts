import { alternated, alternationLine, meanOf, withProcess } from './alternation.js';
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

/** The read scenarios of issue 9 and their limit, bare Fastify + the same SELECT. */
export interface Reads {
  healthz: LoadResult;
  validate: LoadResult;
  userGet: LoadResult;
  /** The judged limit of validate and user/get: the mean of the bare route's windows. */
  limit: LoadResult;
  /** How many windows of the bare route `limit` is the mean of. */
  limitWindows: number;
  /** The bare route's rows of the table, in the order they ran. */
  limitRows: Row[];
  /** Lines under the table: the alternated windows, where they alternated. */
  notes: string[];
}

/** The service's loads of one read scenario run: healthz, validate (taken), user/get. */
function readLoads(settings: Settings, service: Service, token: string) {
  const load = (options: Omit<LoadOptions, 'url' | 'serverPid' | 'seconds'>): LoadOptions => ({
    ...options,
    url: service.url,
    serverPid: service.pid,
    seconds: settings.seconds,
  });
  return {
    healthz: load({ path: '/healthz', connections: 50 }),
    validate: validateTaken(settings, service),
    userGet: load({ path: '/v1/user/get', headers: { authorization: `Bearer ${token}` }, connections: 50 }),
  };
}

/** validate/email with a taken address (422), 50 connections: the scenario and its limit's load. */
function validateTaken(settings: Settings, server: Service): LoadOptions {
  return {
    url: server.url,
    method: 'POST',
    path: '/v1/validate/email',
    headers: FORM,
    body: takenEmails(settings.smallUsers),
    connections: 50,
    seconds: settings.seconds,
    expectStatus: 422,
    serverPid: server.pid,
  };
}

/**
 * validate/email and user/get beside their limit. On a PostgreSQL server both processes stay up, warmed, and
 * their windows alternate (`alternated`: bare, validate, user/get, bare, … bare; `rounds` rounds), as the
 * hashing scenarios alternate with raw argon2: on the seventeenth machine the bare route moved by up to 36 %
 * between a window before the service's and one after it, more than validate's margin. On PGlite one process
 * owns the data directory, so the bare route runs in a process of its own before and after the service (the
 * limit is the mean of the two).
 */
export async function benchReads(
  database: BenchDatabase,
  settings: Settings,
  peaks: PeakRss[],
): Promise<Reads> {
  const warm = (options: LoadOptions) => warmThenRun(options, settings.warmupSeconds);
  if (database.name === 'postgres') {
    return withProcess(
      () => startBareServer(database.env),
      (bare) =>
        withProcess(
          () => startService(database.env),
          async (service) => {
            const loads = readLoads(settings, service, await registerLoginUser(service.url));
            const limitLoad = validateTaken(settings, bare);
            // Each process warms up on its own load first, so every measured window runs warm code.
            await warm(limitLoad);
            const healthz = await warm(loads.healthz);
            await warm(loads.validate);
            await warm(loads.userGet);
            const alternation = await alternated(
              () => runLoad(limitLoad),
              [() => runLoad(loads.validate), () => runLoad(loads.userGet)],
              settings.rounds,
            );
            const [validate, userGet] = alternation.services as [LoadResult, LoadResult];
            const windows = settings.rounds + 1;
            const name = 'validate/email ÷ bare Fastify + SELECT';
            return {
              healthz,
              validate,
              userGet,
              limit: alternation.limit,
              limitWindows: windows,
              limitRows: [
                { scenario: `LIMIT bare Fastify + SELECT, ${windows} windows`, result: alternation.limit },
              ],
              notes: [
                alternationLine(name, alternation.limit, validate, settings.seconds),
                alternationLine(
                  'user/get ÷ bare Fastify + SELECT',
                  alternation.limit,
                  userGet,
                  settings.seconds,
                ),
              ],
            };
          },
          peaks,
        ),
    );
  }
  const bare = () =>
    withProcess(
      () => startBareServer(database.env),
      (server) => warm(validateTaken(settings, server)),
    );
  const before = await bare();
  const service = await withProcess(
    () => startService(database.env),
    async (service) => {
      const loads = readLoads(settings, service, await registerLoginUser(service.url));
      return {
        healthz: await warm(loads.healthz),
        validate: await warm(loads.validate),
        userGet: await warm(loads.userGet),
      };
    },
    peaks,
  );
  const after = await bare();
  return {
    ...service,
    limit: meanOf([before, after]),
    limitWindows: 2,
    limitRows: [
      { scenario: 'LIMIT bare Fastify + SELECT, before', result: before },
      { scenario: 'LIMIT bare Fastify + SELECT, after', result: after },
    ],
    notes: [],
  };
}

/** The bare route with its SELECT as a named statement, as the service runs its hot queries (information). */
export function benchBarePrepared(database: BenchDatabase, settings: Settings): Promise<LoadResult> {
  return withProcess(
    () => startBareServer(database.env, { prepared: true }),
    (server) => warmThenRun(validateTaken(settings, server), settings.warmupSeconds),
  );
}
