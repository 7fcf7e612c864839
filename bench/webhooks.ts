import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { alternationLine, median, medianOf, withProcess } from './alternation.js';
import { argon2Limit } from './argon2-limit.js';
import type { BenchDatabase } from './database.js';
import { registrations } from './hot-paths.js';
import type { LoadOptions, LoadResult } from './load.js';
import { runLoad, warmUp } from './load.js';
import { FORM, LOGIN, loadOn } from './reads.js';
import type { Row } from './report.js';
import { accountsCommand, startService } from './service.js';
import type { Settings } from './settings.js';

/** The most register and login may lose, as a share of their ratio to argon2, with an endpoint configured. */
const MAX_LOSS = 0.05;

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

/** One load beside its argon2 limit, in windows without and with the endpoint taking deliveries. */
interface PairedLoad {
  limit: LoadResult;
  without: LoadResult;
  with: LoadResult;
  /** Each round's with ÷ without, windows side by side. */
  pairs: number[];
  line: string;
}

/**
 * `load` alternated with its argon2 limit (L S S L S S … L), each round a window with the endpoint disabled
 * (events are still written and fanned out, to no endpoint, as on a service that has none) and one with it
 * enabled, side by side: a drift of the machine's speed moves both alike, where two services measured one
 * after the other would see different machines.
 */
async function paired(
  name: string,
  load: LoadOptions,
  limit: () => Promise<LoadResult>,
  setEndpoint: (enabled: boolean) => Promise<void>,
  settings: Settings,
): Promise<PairedLoad> {
  await warmUp(load, settings.hashWarmupSeconds);
  const window = async (enabled: boolean) => {
    await setEndpoint(enabled);
    return runLoad(load);
  };
  // Twice the rounds of other scenarios: a login or sign-up window holds only a few hundred requests, and
  // what is judged is a few per cent. The pair's order alternates (without first, then with first): the
  // second of two windows in a row follows a loaded one, the first an idle one, and neither side should
  // always be second.
  const limits = [await limit()];
  const sides: [LoadResult[], LoadResult[]] = [[], []];
  for (let round = 0; round < 2 * settings.rounds; round++) {
    const order = round % 2 === 0 ? [false, true] : [true, false];
    for (const enabled of order) sides[enabled ? 1 : 0].push(await window(enabled));
    limits.push(await limit());
  }
  const limitResult = medianOf(limits);
  const [without, withEndpoint] = sides.map(medianOf) as [LoadResult, LoadResult];
  const before = without.windowsPerSecond ?? [];
  const pairs = (withEndpoint.windowsPerSecond ?? []).map((rate, round) => rate / (before[round] ?? 0));
  const figures = (result: LoadResult) =>
    (result.windowsPerSecond ?? []).map((rate) => rate.toFixed(0)).join(' ');
  return {
    limit: limitResult,
    without,
    with: withEndpoint,
    pairs,
    line:
      `${alternationLine(`${name} without endpoint ÷ argon2`, limitResult, without, settings.seconds)}; ` +
      `with endpoint, req/s: ${figures(withEndpoint)}`,
  };
}

/** Login and register, each in paired windows, on one service with the endpoint `id`. */
async function measure(
  env: Record<string, string>,
  settings: Settings,
  endpointId: string,
): Promise<{ login: PairedLoad; register: PairedLoad }> {
  const inFlight = settings.hashInFlight;
  let enabled = true;
  const setEndpoint = async (enable: boolean) => {
    if (enable === enabled) return;
    await accountsCommand(env, ['webhook', enable ? 'enable' : 'disable', endpointId]);
    enabled = enable;
  };
  return withProcess(
    () => startService(env),
    async (service) => {
      await ensureLoginUser(service.url);
      const login = await paired(
        'login/email',
        loadOn(settings, service, {
          method: 'POST',
          path: '/v1/auth/login/email',
          headers: FORM,
          body: new URLSearchParams(LOGIN).toString(),
          connections: 16,
        }),
        () => argon2Limit('verify', inFlight, settings.seconds),
        setEndpoint,
        settings,
      );
      const register = await paired(
        'register',
        loadOn(settings, service, {
          method: 'POST',
          path: '/v1/auth/register',
          headers: FORM,
          body: registrations(),
          connections: 16,
        }),
        () => argon2Limit('hash', inFlight, settings.seconds),
        setEndpoint,
        settings,
      );
      return { login, register };
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
 * (the ratio hot-paths judges) on one service with an endpoint subscribed to every event and a receiver
 * answering 204 on 127.0.0.1, in rounds of a window with the endpoint disabled and one with it enabled, side
 * by side. The median round may lose at most 5 % with it enabled. The database must hold the bench's login
 * account.
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
    const added = JSON.parse(await accountsCommand(env, ['webhook', 'add', receiver.url, '--json'])) as {
      id: string;
    };
    try {
      const measured = await measure(env, settings, added.id);
      const rows: Row[] = [];
      const notes: string[] = [];
      for (const [name, paired] of [
        ['login/email', measured.login],
        ['register', measured.register],
      ] as const) {
        const limit = { scenario: 'argon2 limit', result: paired.limit, metric: 'req/s' } as const;
        rows.push(
          { scenario: `${name} without endpoint`, result: paired.without, baseline: limit },
          { scenario: `${name} with endpoint`, result: paired.with, baseline: limit },
        );
        const before = ratioOf(paired.without, paired.limit);
        const after = ratioOf(paired.with, paired.limit);
        // Judged on the rounds' pairs, each two windows side by side: the medians of the two sides can come
        // from windows far apart in the run, which is what pairing the windows is for.
        const kept = median(paired.pairs);
        notes.push(
          paired.line,
          `webhooks: ${name} ratio to argon2 ${before.toFixed(3)} without an endpoint, ${after.toFixed(3)} with one ` +
            `(${((before === 0 ? 0 : after / before) * 100).toFixed(1)} %); each round with ÷ without: ` +
            `${paired.pairs.map((pair) => `${(pair * 100).toFixed(0)} %`).join(' ')}: median ` +
            `${(kept * 100).toFixed(1)} % kept (target ≥ ${((1 - MAX_LOSS) * 100).toFixed(0)} %): ` +
            `${kept >= 1 - MAX_LOSS ? 'PASS' : 'FAIL'}`,
        );
      }
      notes.push(`webhooks: the receiver got ${receiver.received()} deliveries during the run.`);
      return { rows, notes };
    } finally {
      await accountsCommand(env, ['webhook', 'remove', added.id]);
    }
  } finally {
    await receiver.close();
  }
}
