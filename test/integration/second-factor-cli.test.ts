import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.js';
import { appCommands, type InProcessCommands } from '../helpers/commands.js';
import { backends } from '../helpers/database.js';
import { registrationForm } from '../helpers/factories.js';
import { postForm } from '../helpers/http.js';
import { recipients, startTestSmtp, type TestSmtp } from '../helpers/mail.js';
import { awayFromStepEdge } from '../helpers/second-factor.js';
import { currentCode } from '../helpers/totp.js';

interface ActivityEvent {
  type: string;
  ip: string | null;
  details: Record<string, unknown>;
}

// The commands run in this process on the app's database, and the app answers what they did at once.
describe.each(backends)('%s: accounts user 2fa reset', (backend) => {
  const ctx = useTestApp(backend);
  /** Where the commands mail (the app keeps the log transport): what reaches it came from a reset. */
  let smtp: TestSmtp;
  let commands: InProcessCommands;

  beforeAll(async () => {
    smtp = await startTestSmtp();
    commands = appCommands(ctx, { MAIL_TRANSPORT: 'smtp', SMTP_URL: smtp.url });
  });
  afterAll(async () => {
    await commands?.close();
    await smtp?.close();
  });

  /** The reset command (it sends its mail before it ends, as a process does before it exits). */
  const reset = (reference: string) => commands.run(['user', '2fa', 'reset', reference, '--yes']);
  /** The reset's alert goes only to a verified address, as its mailed link makes it. */
  const markEmailVerified = (email: string) =>
    ctx.database.handle.db
      .updateTable('users')
      .set({ email_verified: true })
      .where((eb) => eb(eb.fn('lower', ['email']), '=', email.toLowerCase()))
      .execute();
  const mailsTo = (address: string) =>
    smtp.mails.filter((mail) => recipients(mail).includes(address.toLowerCase()));

  const activityOf = async (token: string): Promise<ActivityEvent[]> => {
    const res = await ctx.app.inject({
      url: '/v1/user/activity',
      headers: { authorization: `Bearer ${token}` },
    });
    return (res.json() as { data: { events: ActivityEvent[] } }).data.events;
  };

  const call = async (url: string, fields: Record<string, string>, token?: string) => {
    const res = await postForm(
      ctx.app,
      `/v1${url}`,
      fields,
      token ? { authorization: `Bearer ${token}` } : {},
    );
    return { status: res.statusCode, body: res.json() as { data: Record<string, unknown> } };
  };

  it('removes the second factor: the user signs in with the password alone again', async () => {
    await awayFromStepEdge();
    const fields = registrationForm();
    const user = (await call('/auth/register', fields)).body.data.user as { api_token: string };
    const setup = await call('/user/2fa/totp/setup', { current_password: fields.password }, user.api_token);
    const secret = setup.body.data.secret as string;
    expect((await call('/user/2fa/totp/enable', { code: currentCode(secret) }, user.api_token)).status).toBe(
      200,
    );
    const login = { email: fields.email, password: fields.password };
    expect((await call('/auth/login/email', login)).body.data.status).toBe('second_factor_required');
    await markEmailVerified(fields.email);

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
  });

  it('only clears a setup that was never enabled: nothing logged, no alert mailed, and it says so', async () => {
    const fields = registrationForm();
    const user = (await call('/auth/register', fields)).body.data.user as { api_token: string };
    // The authenticator was shown but its first code never entered: the second factor never went on.
    const setup = await call('/user/2fa/totp/setup', { current_password: fields.password }, user.api_token);
    expect(setup.status).toBe(200);

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

    const events = await activityOf(user.api_token);
    expect(events.map((event) => event.type)).toContain('account_created');
    expect(events.filter((event) => event.type.startsWith('second_factor'))).toEqual([]);
  });
});
