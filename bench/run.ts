import { cpus } from 'node:os';
import { type BenchDatabase, embeddedDatabase, serverDatabase } from './database.js';
import { benchFeed, type FeedBench } from './feed.js';
import { benchInspirers } from './inspirers.js';
import { type LoadOptions, type LoadResult, runLoad, warmThenRun } from './load.js';
import { probe } from './probe.js';
import { type Row, table } from './report.js';
import { migrate, type Service, startService } from './service.js';
import { loadSettings, type Settings } from './settings.js';

const FORM = { 'content-type': 'application/x-www-form-urlencoded' };
const LOGIN = { email: 'bench-login@bench.example', password: 'correct horse battery staple' };

/** The signed-in user of the token and login scenarios, registered through the API like a real one. */
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

/** A fresh address on every request: each is a miss on the lower(email) index, as a sign-up form's check is. */
function freshEmails(tag: string): () => string {
  let n = 0;
  return () => new URLSearchParams({ email: `probe-${tag}-${++n}@bench.example` }).toString();
}

interface BackendResult {
  rows: Row[];
  /** What the login rows mean for the event loop, in one sentence with the numbers. */
  eventLoop: string;
}

async function benchBackend(database: BenchDatabase, settings: Settings): Promise<BackendResult> {
  const load = (service: Service, options: Omit<LoadOptions, 'url' | 'connections' | 'seconds'>) => ({
    url: service.url,
    connections: settings.connections,
    seconds: settings.seconds,
    ...options,
  });
  const validate = (service: Service, tag: string): LoadOptions =>
    load(service, { method: 'POST', path: '/v1/validate/email', headers: FORM, body: freshEmails(tag) });
  const warm = (options: LoadOptions) => warmThenRun(options, settings.warmupSeconds);

  await migrate(database.env);
  await database.seedUsers(1, settings.smallUsers);
  let service = await startService(database.env);
  let healthz: LoadResult;
  let validateSmall: LoadResult;
  let userGet: LoadResult;
  let login: LoadResult;
  let probeAlone: LoadResult;
  let probeDuringLogin: LoadResult;
  try {
    const token = await registerLoginUser(service.url);
    healthz = await warm(load(service, { path: '/healthz' }));
    validateSmall = await warm(validate(service, 'small'));
    userGet = await warm(
      load(service, { path: '/v1/user/get', headers: { authorization: `Bearer ${token}` } }),
    );
    // The probe is paced and on one connection, so it measures how long a cheap request waits, not how
    // many the server can answer; alone first, then beside the login load.
    const healthzProbe = () => probe(`${service.url}/healthz`, settings.probeRate, settings.seconds);
    probeAlone = await healthzProbe();
    const loginLoad = load(service, {
      method: 'POST',
      path: '/v1/auth/login/email',
      headers: FORM,
      body: new URLSearchParams(LOGIN).toString(),
    });
    if (settings.warmupSeconds > 0) await runLoad({ ...loginLoad, seconds: settings.warmupSeconds });
    [login, probeDuringLogin] = await Promise.all([runLoad(loginLoad), healthzProbe()]);
  } finally {
    await service.stop();
  }

  // The same check on a table 50 times larger: an index probe costs about the same, a scan would not.
  await database.seedUsers(settings.smallUsers + 1, settings.largeUsers);
  service = await startService(database.env);
  let validateLarge: LoadResult;
  try {
    validateLarge = await warm(validate(service, 'large'));
  } finally {
    await service.stop();
  }

  const small = `validate/email @${settings.smallUsers.toLocaleString('en')}`;
  const floor = (result: LoadResult) => ({ scenario: 'healthz', result, metric: 'req/s' as const });
  const rows: Row[] = [
    { scenario: 'healthz', result: healthz },
    { scenario: small, result: validateSmall, baseline: floor(healthz) },
    { scenario: 'user/get (Bearer)', result: userGet, baseline: floor(healthz) },
    { scenario: 'login/email (argon2id)', result: login, baseline: floor(healthz) },
    { scenario: `healthz probe ${settings.probeRate}/s alone`, result: probeAlone },
    {
      scenario: 'healthz probe during login',
      result: probeDuringLogin,
      baseline: { scenario: 'probe alone', result: probeAlone, metric: 'p99' },
    },
    {
      scenario: `validate/email @${settings.largeUsers.toLocaleString('en')}`,
      result: validateLarge,
      baseline: { scenario: small, result: validateSmall, metric: 'req/s' },
    },
  ];
  // Were argon2 on the event loop, a healthz would queue behind the hashes in progress: it would wait at
  // least a whole login (all ten connections' worth at worst), at the median, not only in the tail.
  const eventLoop =
    `event loop: during the login load healthz waited p50 ${probeDuringLogin.p50.toFixed(2)} ms, ` +
    `p99 ${probeDuringLogin.p99.toFixed(1)} ms, while one login took p50 ${login.p50} ms; ` +
    `a hash on the event loop would hold every healthz for at least that long.`;
  return { rows, eventLoop };
}

async function main(): Promise<number> {
  const settings = loadSettings(process.env);
  const cpu = cpus();
  console.log(
    `accounts bench: ${cpu.length} cores (${cpu[0]?.model.trim() ?? 'unknown cpu'}), Node ${process.version}; ` +
      `${settings.seconds} s per scenario after ${settings.warmupSeconds} s warm-up, ` +
      `${settings.connections} connections, 127.0.0.1`,
  );
  const backends: Array<() => Promise<BenchDatabase>> = [embeddedDatabase];
  const { databaseUrl } = settings;
  if (databaseUrl !== undefined) backends.push(() => serverDatabase(databaseUrl));
  else console.log('DATABASE_URL is not set: PostgreSQL is skipped, only the embedded PGlite is measured.');

  let failed = false;
  for (const open of backends) {
    const database = await open();
    let result: BackendResult;
    let feed: FeedBench;
    try {
      result = await benchBackend(database, settings);
      feed = await benchFeed(database, settings);
      result.rows.push(...(await benchInspirers(database, settings)));
    } finally {
      await database.drop();
    }
    const rows = [...result.rows, ...feed.rows];
    console.log(`\n${database.name}\n\n${table(result.rows)}\n\n${result.eventLoop}`);
    console.log(`\n${table(feed.rows)}\n\n${feed.summary}`);
    const spoiled = rows.filter((row) => row.result.failures > 0);
    for (const row of spoiled) console.error(`${row.scenario}: ${row.result.failures} failed requests`);
    failed ||= spoiled.length > 0;
  }
  return failed ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
