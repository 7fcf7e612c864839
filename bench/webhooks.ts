import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { alternated, alternationLine, withProcess } from './alternation.js';
import { argon2Limit } from './argon2-limit.js';
import type { BenchDatabase } from './database.js';
import { registrations } from './hot-paths.js';
import type { LoadResult } from './load.js';
import { runLoad, warmUp } from './load.js';
import { FORM, LOGIN, loadOn } from './reads.js';
import type { Row } from './report.js';
import { accountsCommand, startService } from './service.js';
import type { Settings } from './settings.js';

/** The most register and login may lose, as a share of their ratio to argon2, with an endpoint configured. */
const MAX_LOSS = 0.05;

/** Login and register beside their argon2 limits on one service (alternated windows, as hot-paths does). */
interface HashingRatios {
  login: LoadResult;
  verifyLimit: LoadResult;
  register: LoadResult;
  hashLimit: LoadResult;
  notes: string[];
}

/** The login scenario's account, registered through the API unless an earlier group did (a 422 then). */
async function ensureLoginUser(url: string): Promise<void> {
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
  if (response.status !== 200 && response.status !== 422) {
    throw new Error(`register answered ${response.status}: ${await response.text()}`);
  }
}

async function measure(
  env: Record<string, string>,
  settings: Settings,
  label: string,
): Promise<HashingRatios> {
  const inFlight = settings.hashInFlight;
  return withProcess(
    () => startService(env),
    async (service) => {
      await ensureLoginUser(service.url);
      const login = loadOn(settings, service, {
        method: 'POST',
        path: '/v1/auth/login/email',
        headers: FORM,
        body: new URLSearchParams(LOGIN).toString(),
        connections: 16,
      });
      const register = loadOn(settings, service, {
        method: 'POST',
        path: '/v1/auth/register',
        headers: FORM,
        body: registrations(),
        connections: 16,
      });
      await warmUp(login, settings.hashWarmupSeconds);
      const logins = await alternated(
        () => argon2Limit('verify', inFlight, settings.seconds),
        [() => runLoad(login)],
        settings.rounds,
      );
      await warmUp(register, settings.hashWarmupSeconds);
      const registers = await alternated(
        () => argon2Limit('hash', inFlight, settings.seconds),
        [() => runLoad(register)],
        settings.rounds,
      );
      const [loginResult] = logins.services;
      const [registerResult] = registers.services;
      if (loginResult === undefined || registerResult === undefined) throw new Error('no service windows');
      return {
        login: loginResult,
        verifyLimit: logins.limit,
        register: registerResult,
        hashLimit: registers.limit,
        notes: [
          alternationLine(
            `login/email ${label} ÷ argon2 verify`,
            logins.limit,
            loginResult,
            settings.seconds,
          ),
          alternationLine(
            `register ${label} ÷ argon2 hash`,
            registers.limit,
            registerResult,
            settings.seconds,
          ),
        ],
      };
    },
  );
}

/** A receiver on 127.0.0.1 that answers every delivery 204 and counts them. */
async function startReceiver(): Promise<{ url: string; received: () => number; close: () => Promise<void> }> {
  let received = 0;
  const server = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      received++;
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    received: () => received,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

const ratioOf = (service: LoadResult, limit: LoadResult) =>
  limit.requestsPerSecond === 0 ? 0 : service.requestsPerSecond / limit.requestsPerSecond;

/**
 * What account events and their webhooks cost register and login: each measured against its argon2 limit
 * (the ratio hot-paths judges) on a service with no endpoint, then on one with an endpoint subscribed to
 * every event and a receiver answering 204 on 127.0.0.1. The ratio with an endpoint may be at most 5 % below
 * the ratio without. The database must hold the bench's login account.
 */
export async function benchWebhooks(
  database: BenchDatabase,
  settings: Settings,
): Promise<{ rows: Row[]; notes: string[] }> {
  const env = {
    ...database.env,
    SECRETS_KEY: randomBytes(32).toString('hex'),
    WEBHOOK_ALLOW_PRIVATE: 'true',
  };
  const receiver = await startReceiver();
  try {
    const without = await measure(env, settings, 'without endpoint');
    await accountsCommand(env, ['webhook', 'add', receiver.url]);
    const withEndpoint = await measure(env, settings, 'with endpoint');
    const rows: Row[] = [];
    const notes = [...without.notes, ...withEndpoint.notes];
    for (const [name, key, limitKey] of [
      ['login/email', 'login', 'verifyLimit'],
      ['register', 'register', 'hashLimit'],
    ] as const) {
      const before = ratioOf(without[key], without[limitKey]);
      const after = ratioOf(withEndpoint[key], withEndpoint[limitKey]);
      const kept = before === 0 ? 0 : after / before;
      rows.push(
        {
          scenario: `${name} without endpoint`,
          result: without[key],
          baseline: { scenario: 'argon2 limit', result: without[limitKey], metric: 'req/s' },
        },
        {
          scenario: `${name} with endpoint`,
          result: withEndpoint[key],
          baseline: { scenario: 'argon2 limit', result: withEndpoint[limitKey], metric: 'req/s' },
        },
      );
      notes.push(
        `webhooks: ${name} ratio to argon2 ${before.toFixed(3)} without an endpoint, ${after.toFixed(3)} with one: ` +
          `${(kept * 100).toFixed(1)} % kept (target ≥ ${((1 - MAX_LOSS) * 100).toFixed(0)} %): ` +
          `${kept >= 1 - MAX_LOSS ? 'PASS' : 'FAIL'}`,
      );
    }
    notes.push(`webhooks: the receiver got ${receiver.received()} deliveries during the run.`);
    return { rows, notes };
  } finally {
    await receiver.close();
  }
}
