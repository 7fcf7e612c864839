import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type InProcessCommands, inProcessCommands } from '../helpers/commands.js';
import { TEST_SECRETS_KEY } from '../helpers/config.js';
import { backends } from '../helpers/database.js';
import { registrationForm } from '../helpers/factories.js';
import { recipients, startTestSmtp, type TestSmtp } from '../helpers/mail.js';
import { type RunningService, startService } from '../helpers/process.js';
import { markStoreEmailVerified, type ProcessStore, processStore } from '../helpers/process-store.js';
import { awayFromStepEdge } from '../helpers/second-factor.js';
import { currentCode } from '../helpers/totp.js';

interface ActivityEvent {
  type: string;
  ip: string | null;
  details: Record<string, unknown>;
}

describe.each(backends)('%s: accounts user 2fa reset', (backend) => {
  let store: ProcessStore;
  let service: RunningService | undefined;
  /** Where the commands mail (the service keeps the log transport): what reaches it came from a reset. */
  let smtp: TestSmtp;
  /**
   * The commands, mailing through the test SMTP server, run in this process on one open database: closed
   * before the service starts (an embedded database belongs to one process at a time).
   */
  let commands: InProcessCommands;

  beforeAll(async () => {
    smtp = await startTestSmtp();
    store = await processStore(
      backend,
      {
        ARGON2_MEMORY_KIB: '1024',
        ARGON2_TIME_COST: '1',
        SECRETS_KEY: TEST_SECRETS_KEY,
      },
      { migrated: true },
    );
    commands = inProcessCommands({ ...store.env, MAIL_TRANSPORT: 'smtp', SMTP_URL: smtp.url });
  });
  afterAll(async () => {
    await commands?.close();
    await service?.stop('SIGKILL');
    await store?.cleanup();
    await smtp?.close();
  });

  /** The reset command (it sends its mail before it ends, as a process does before it exits). */
  const reset = (reference: string) => commands.run(['user', '2fa', 'reset', reference, '--yes']);
  /** With PGlite the service stops for the commands, and the commands let go before it starts again. */
  const startServiceAfterCommands = async () => {
    await commands.close();
    service = await startService(store.env);
  };
  const stopServiceForCommands = async () => {
    if (backend === 'postgres') return;
    await service?.stop();
    service = undefined;
  };
  const mailsTo = (address: string) =>
    smtp.mails.filter((mail) => recipients(mail).includes(address.toLowerCase()));

  const activityOf = async (token: string): Promise<ActivityEvent[]> => {
    const res = await fetch(`${service?.url}/v1/user/activity`, {
      headers: { authorization: `Bearer ${token}` },
    });
    return ((await res.json()) as { data: { events: ActivityEvent[] } }).data.events;
  };

  const call = async (url: string, fields: Record<string, string>, token?: string) => {
    const res = await fetch(`${service?.url}/v1${url}`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        ...(token ? { authorization: `Bearer ${token}` } : {}),
      },
      body: new URLSearchParams(fields).toString(),
    });
    return { status: res.status, body: (await res.json()) as { data: Record<string, unknown> } };
  };

  it('removes the second factor: the user signs in with the password alone again', async () => {
    await awayFromStepEdge();
    service = await startService(store.env);
    const fields = registrationForm();
    const user = (await call('/auth/register', fields)).body.data.user as { api_token: string };
    const setup = await call('/user/2fa/totp/setup', { current_password: fields.password }, user.api_token);
    const secret = setup.body.data.secret as string;
    expect((await call('/user/2fa/totp/enable', { code: currentCode(secret) }, user.api_token)).status).toBe(
      200,
    );
    const login = { email: fields.email, password: fields.password };
    expect((await call('/auth/login/email', login)).body.data.status).toBe('second_factor_required');
    // The embedded database belongs to one process: the command runs with the server stopped.
    await stopServiceForCommands();
    // The reset's alert goes only to a verified address.
    await markStoreEmailVerified(store, fields.email);

    const refused = await commands.run(['user', '2fa', 'reset', fields.email]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe(`Not reset: add --yes to remove the second factor of "${fields.email}"\n`);
    const removed = await reset(fields.email);
    expect(removed.stderr).toBe('');
    expect(removed.code).toBe(0);
    expect(removed.stdout).toMatch(/^Removed the second factor of \S+ \([0-9a-f-]{36}\)\.\n$/);
    expect(mailsTo(fields.email).map((mail) => mail.subject)).toEqual([
      'Two-step verification was turned off',
    ]);
    const again = await reset(fields.username);
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(/has no second factor; nothing to remove\.\n$/);
    expect(mailsTo(fields.email)).toHaveLength(1);

    if (!service) await startServiceAfterCommands();
    const plain = await call('/auth/login/email', login);
    expect(plain.status).toBe(200);
    const token = (plain.body.data.user as { api_token?: unknown }).api_token;
    expect(typeof token).toBe('string');
    // The reset is in the user's own activity, by the operator (the command has no address to log).
    const events = await activityOf(token as string);
    expect(events.filter((event) => event.type.startsWith('second_factor'))).toEqual([
      expect.objectContaining({ type: 'second_factor_disabled', details: { by: 'operator' }, ip: null }),
      expect.objectContaining({ type: 'second_factor_enabled', details: { factor: 'totp' } }),
    ]);
  }, 60_000);

  it('only clears a setup that was never enabled: nothing logged, no alert mailed, and it says so', async () => {
    if (!service) await startServiceAfterCommands();
    const fields = registrationForm();
    const user = (await call('/auth/register', fields)).body.data.user as { api_token: string };
    // The authenticator was shown but its first code never entered: the second factor never went on.
    const setup = await call('/user/2fa/totp/setup', { current_password: fields.password }, user.api_token);
    expect(setup.status).toBe(200);
    await stopServiceForCommands();

    const cleared = await reset(fields.email);
    expect(cleared.stderr).toBe('');
    expect(cleared.code).toBe(0);
    expect(cleared.stdout).toMatch(
      /^\S+ \([0-9a-f-]{36}\) never turned the second factor on; cleared the unfinished authenticator setup \(nothing logged, no alert mailed\)\.\n$/,
    );
    // The setup is gone: a second reset finds nothing.
    const again = await reset(fields.email);
    expect(again.stdout).toMatch(/has no second factor; nothing to remove\.\n$/);
    expect(mailsTo(fields.email)).toEqual([]);

    if (!service) await startServiceAfterCommands();
    const events = await activityOf(user.api_token);
    expect(events.map((event) => event.type)).toContain('account_created');
    expect(events.filter((event) => event.type.startsWith('second_factor'))).toEqual([]);
  }, 60_000);
});
