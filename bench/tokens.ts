import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { createLocalJWKSet, type JSONWebKeySet, jwtVerify } from 'jose';
import type { BenchDatabase } from './database.js';
import { type LoadResult, warmThenRun } from './load.js';
import type { Row } from './report.js';
import { startService } from './service.js';
import type { Settings } from './settings.js';

/** A user of the tokens scenario, registered through the API like a real one; its API token. */
export async function registerTokenUser(url: string): Promise<string> {
  const id = randomBytes(4).toString('hex');
  const response = await fetch(`${url}/v1/auth/register`, {
    method: 'POST',
    body: new URLSearchParams({
      type: 'email',
      email: `bench-tokens-${id}@bench.example`,
      username: `benchtokens${id}`,
      gender: '0',
      user_agreement: 'on',
      password: `Quiet-Harbour-${id}`,
    }),
  });
  const body = (await response.json()) as { data?: { user?: { api_token?: string } } };
  const token = body.data?.user?.api_token;
  if (response.status !== 200 || token === undefined) throw new Error(`register answered ${response.status}`);
  return token;
}

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0;

/** One call after another for `seconds`, each timed to the microsecond (autocannon's whole ms say "<1"). */
async function timedLoop(call: () => Promise<unknown>, seconds: number): Promise<LoadResult> {
  const times: number[] = [];
  const end = performance.now() + seconds * 1000;
  while (performance.now() < end) {
    const start = performance.now();
    await call();
    times.push(performance.now() - start);
  }
  times.sort((a, b) => a - b);
  return {
    requestsPerSecond: times.length / seconds,
    p50: percentile(times, 0.5),
    p99: percentile(times, 0.99),
    failures: 0,
  };
}

/** What another service spends on one request when it verifies the access token alone: jose against the JWKS. */
function verifyLoop(token: string, jwks: JSONWebKeySet, seconds: number): Promise<LoadResult> {
  const keys = createLocalJWKSet(jwks);
  return timedLoop(() => jwtVerify(token, keys, { typ: 'at+jwt' }), seconds);
}

/** What it spends when it asks this service instead: one user/get round trip at a time, from one client. */
function roundTripLoop(url: string, authorization: string, seconds: number): Promise<LoadResult> {
  return timedLoop(async () => {
    const response = await fetch(`${url}/v1/user/get`, { headers: { authorization } });
    await response.arrayBuffer();
    if (response.status !== 200) throw new Error(`user/get answered ${response.status}`);
  }, seconds);
}

/**
 * `--scenarios=tokens`: auth/token per second beside user/get (both one token lookup; auth/token adds a
 * signature), and what another service saves: a jose verification against the JWKS beside a user/get round
 * trip, each timed one at a time. bench/tracing.ts adds user/get with tracing on beside off.
 */
export async function benchTokens(database: BenchDatabase, settings: Settings): Promise<Row[]> {
  const service = await startService({ ...database.env, SECRETS_KEY: randomBytes(32).toString('hex') });
  try {
    const apiToken = await registerTokenUser(service.url);
    const authorization = `Bearer ${apiToken}`;
    const load = (path: string, method: 'GET' | 'POST') =>
      warmThenRun(
        {
          url: service.url,
          path,
          method,
          headers: { authorization },
          connections: settings.connections,
          seconds: settings.seconds,
        },
        settings.warmupSeconds,
      );
    const userGet = await load('/v1/user/get', 'GET');
    const authToken = await load('/v1/auth/token', 'POST');
    const issued = await fetch(`${service.url}/v1/auth/token`, {
      method: 'POST',
      headers: { authorization },
    });
    const { access_token } = ((await issued.json()) as { data: { access_token: string } }).data;
    const jwks = (await (await fetch(`${service.url}/.well-known/jwks.json`)).json()) as JSONWebKeySet;
    const verify = await verifyLoop(access_token, jwks, settings.seconds);
    const roundTrip = await roundTripLoop(service.url, authorization, settings.seconds);
    return [
      { scenario: 'user/get (tokens baseline)', result: userGet },
      {
        scenario: 'auth/token',
        result: authToken,
        baseline: { scenario: 'user/get (tokens baseline)', result: userGet, metric: 'req/s' },
      },
      { scenario: 'user/get round trip, one at a time (fetch)', result: roundTrip },
      {
        scenario: 'access token verified with jose (one thread, in process)',
        result: verify,
        baseline: {
          scenario: 'user/get round trip, one at a time (fetch)',
          result: roundTrip,
          metric: 'p50',
        },
      },
    ];
  } finally {
    await service.stop();
  }
}
