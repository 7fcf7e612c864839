import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type InProcessCommands, inProcessCommands } from '../helpers/commands.js';
import { TEST_SECRETS_KEY } from '../helpers/config.js';
import { backends, processBackend } from '../helpers/database.js';
import { expectOneLineFailure, type RunningService, runCli, startService } from '../helpers/process.js';
import { type ProcessStore, processStore } from '../helpers/process-store.js';
import { currentCode } from '../helpers/totp.js';

const STAFF_VIEW = {
  id: expect.stringMatching(/^[0-9a-f-]{36}$/),
  enrolled_at: null,
  disabled_at: null,
  locked_until: null,
  created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
};

const FROM_CONSOLE = { 'content-type': 'application/json', 'x-requested-with': 'accounts-web' };

/** Enrolls the added member on a running instance, then signs in on it: the session's cookie and CSRF token. */
async function enrollAndSignIn(service: RunningService, enrollmentUrl: string, email: string) {
  const token = new URL(enrollmentUrl).searchParams.get('token') as string;
  const enrollment = await fetch(`${service.url}/admin/v1/enrollment?token=${token}`);
  const secret = ((await enrollment.json()) as { data: { totp_secret: string } }).data.totp_secret;
  const password = 'a staff pass phrase';
  const enrolled = await fetch(`${service.url}/admin/v1/enrollment`, {
    method: 'POST',
    headers: FROM_CONSOLE,
    body: JSON.stringify({ token, password, code: currentCode(secret) }),
  });
  expect(enrolled.status).toBe(200);
  // The next time step's code (a code works once; the window takes one step ahead).
  const login = await fetch(`${service.url}/admin/v1/auth/login`, {
    method: 'POST',
    headers: FROM_CONSOLE,
    body: JSON.stringify({ email, password, code: currentCode(secret, 1) }),
  });
  expect(login.status).toBe(200);
  const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0] as string;
  const csrf = ((await login.json()) as { data: { csrf_token: string } }).data.csrf_token;
  return { cookie, 'x-csrf-token': csrf };
}

describe.each(backends)('%s: accounts staff', (backend) => {
  let store: ProcessStore;
  let commands: InProcessCommands;

  beforeAll(async () => {
    store = await processStore(backend, { SECRETS_KEY: TEST_SECRETS_KEY }, { migrated: true });
    commands = inProcessCommands(store.env);
  });
  afterAll(async () => {
    await commands?.close();
    await store?.cleanup();
  });

  const staff = async (args: string[]) => {
    const result = await commands.run(['staff', ...args]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    return result.stdout;
  };

  it('adds, lists, changes, disables, enables, unlocks and removes staff, each with --json', async () => {
    const added = JSON.parse(await staff(['add', 'Minji@Example.com', '--role', 'support', '--json']));
    expect(added).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      email: 'minji@example.com',
      role: 'support',
      enrollment_url: expect.stringMatching(
        /^http:\/\/localhost:8080\/console\/enroll\?token=[A-Za-z0-9_-]{43}$/,
      ),
    });
    const member = { ...STAFF_VIEW, id: added.id, email: 'minji@example.com' };
    expect(JSON.parse(await staff(['list', '--json']))).toEqual([
      { ...member, role: 'support', state: 'invited' },
    ]);
    expect(JSON.parse(await staff(['role', added.email, 'viewer', '--json']))).toEqual({
      ...member,
      role: 'viewer',
      state: 'invited',
    });
    const disabled = JSON.parse(await staff(['disable', added.id, '--json']));
    expect(disabled).toEqual({
      ...member,
      role: 'viewer',
      state: 'disabled',
      disabled_at: expect.any(String),
    });
    expect(JSON.parse(await staff(['enable', added.id, '--json']))).toEqual({
      ...member,
      role: 'viewer',
      state: 'invited',
    });
    expect(JSON.parse(await staff(['unlock', added.email, '--json']))).toEqual({
      ...member,
      role: 'viewer',
      state: 'invited',
    });
    expect(await staff(['list'])).toBe(
      `ID${' '.repeat(36)}EMAIL              ROLE    STATE\n${added.id}  minji@example.com  viewer  invited\n`,
    );
    const history = JSON.parse(await staff(['history', added.email, '--json']));
    expect(
      history.map((change: Record<string, unknown>) => [
        change.action,
        change.role_before,
        change.role_after,
      ]),
    ).toEqual([
      ['grant', null, 'support'],
      ['change', 'support', 'viewer'],
      ['disable', 'viewer', null],
      ['enable', null, 'viewer'],
    ]);
    expect(history[0].actor).toMatch(/^cli:.+/);
    expect(await staff(['remove', added.email])).toBe(`Removed minji@example.com (${added.id}).\n`);
    expect(JSON.parse(await staff(['list', '--json']))).toEqual([]);
    expect(await staff(['list'])).toBe('No staff.\n');
  });

  it('says in one line what is wrong: a role, an address, a member taken or unknown', async () => {
    expectOneLineFailure(
      await commands.run(['staff', 'add', 'a@example.com', '--role', 'owner']),
      '--role: The selected role is invalid.',
    );
    expectOneLineFailure(
      await commands.run(['staff', 'add', 'not-an-email', '--role', 'viewer']),
      '--email: The email must be a valid email address.',
    );
    await staff(['add', 'taken@example.com', '--role', 'viewer']);
    expectOneLineFailure(
      await commands.run(['staff', 'add', 'TAKEN@example.com', '--role', 'admin']),
      '--email: The email has already been taken.',
    );
    expectOneLineFailure(
      await commands.run(['staff', 'disable', 'nobody@example.com']),
      'Staff member "nobody@example.com" not found',
    );
    expectOneLineFailure(
      await commands.run(['staff', 'add', 'b@example.com']),
      "error: required option '--role <role>' not specified",
    );
  });
});

// The embedded database is the server's alone: `accounts staff add` is handed to it and answers the same.
describe.each(backends.filter((backend) => backend === 'pglite'))(
  '%s: accounts staff beside a running server',
  (backend) => {
    let store: ProcessStore;
    let service: RunningService;

    beforeAll(async () => {
      store = await processStore(backend, {
        SECRETS_KEY: TEST_SECRETS_KEY,
        ARGON2_MEMORY_KIB: '1024',
        ARGON2_TIME_COST: '1',
      });
      service = await startService(store.env);
    });
    afterAll(async () => {
      await service?.stop();
      await store?.cleanup();
    });

    it('adds a member through the server, who then enrolls and signs in on it', async () => {
      const result = await runCli(
        ['staff', 'add', 'ops@example.com', '--role', 'admin', '--json'],
        store.env,
      );
      expect(result.stderr).toBe('');
      const added = JSON.parse(result.stdout);
      expect(added).toMatchObject({ email: 'ops@example.com', role: 'admin' });
      const session = await enrollAndSignIn(service, added.enrollment_url, added.email);
      const me = await fetch(`${service.url}/admin/v1/me`, { headers: session });
      expect(((await me.json()) as { data: { staff: unknown } }).data.staff).toEqual({
        id: added.id,
        email: added.email,
        role: 'admin',
      });
    });
  },
);

// Two servers on one PostgreSQL database share the staff sessions: signed in on one, known on the other.
describe.each(backends.filter((backend) => backend === 'postgres' && processBackend === 'postgres'))(
  '%s: two instances sharing a staff session',
  (backend) => {
    let store: ProcessStore;
    const services: RunningService[] = [];

    beforeAll(async () => {
      store = await processStore(
        backend,
        {
          SECRETS_KEY: TEST_SECRETS_KEY,
          ARGON2_MEMORY_KIB: '1024',
          ARGON2_TIME_COST: '1',
        },
        { migrated: true },
      );
      services.push(...(await Promise.all([startService(store.env), startService(store.env)])));
    });
    afterAll(async () => {
      await Promise.all(services.map((service) => service.stop()));
      await store?.cleanup();
    });

    it('knows a session signed in on one instance on the other, and ends it there for both', async () => {
      const [first, second] = services as [RunningService, RunningService];
      const commands = inProcessCommands(store.env);
      const added = JSON.parse(
        (await commands.run(['staff', 'add', 'two@example.com', '--role', 'viewer', '--json'])).stdout,
      );
      await commands.close();
      const session = await enrollAndSignIn(first, added.enrollment_url, added.email);
      expect((await fetch(`${second.url}/admin/v1/me`, { headers: session })).status).toBe(200);
      const out = await fetch(`${second.url}/admin/v1/auth/logout`, { method: 'POST', headers: session });
      expect(out.status).toBe(200);
      expect((await fetch(`${first.url}/admin/v1/me`, { headers: session })).status).toBe(401);
    });
  },
);
