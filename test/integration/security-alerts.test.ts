import type { ParsedMail } from 'mailparser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { markEmailVerified } from '../helpers/account-rows.js';
import { closeTestApp, createTestApp, type TestApp } from '../helpers/app.js';
import { backends } from '../helpers/database.js';
import { bearer, type RegisteredUser, registerUser, registrationForm, unique } from '../helpers/factories.js';
import { expectOk, postForm } from '../helpers/http.js';
import { recipients, startTestSmtp, type TestSmtp } from '../helpers/mail.js';
import { USER_AGENTS } from '../helpers/security-events.js';

/** Security alerts, received by a real SMTP server. */
describe.each(backends)('%s: security alert mails', (backend) => {
  let smtp: TestSmtp;
  let ctx: TestApp;
  let quiet: TestApp;
  const env = () => ({ MAIL_TRANSPORT: 'smtp', SMTP_URL: smtp.url, PUBLIC_URL: 'https://accounts.test' });

  beforeAll(async () => {
    smtp = await startTestSmtp();
    ctx = await createTestApp(backend, env());
  });
  afterAll(async () => {
    if (ctx) await closeTestApp(ctx);
    await smtp?.close();
  });

  /** The alert mails (not the verification mails) this address received, once every send has finished. */
  async function alertsTo(address: string, ...apps: TestApp[]): Promise<ParsedMail[]> {
    for (const app of apps.length > 0 ? apps : [ctx]) await app.mailer.idle();
    return smtp.mails.filter(
      (mail) => recipients(mail).includes(address.toLowerCase()) && !/confirm|확인/i.test(mail.subject ?? ''),
    );
  }

  const login = (app: TestApp, user: RegisteredUser, agent: string, headers: Record<string, string> = {}) =>
    postForm(
      app.app,
      '/v1/auth/login/email',
      { email: user.email, password: user.password },
      { 'user-agent': agent, ...headers },
    );

  /** A user registered from `agent`: the device of record; the address verified (alerts go only to such). */
  async function registerFrom(app: TestApp, agent: string): Promise<RegisteredUser> {
    const fields = registrationForm();
    const res = await postForm(app.app, '/v1/auth/register', fields, { 'user-agent': agent });
    const { user } = expectOk<{ user: { id: string; api_token: string; slug: string } }>(res);
    await markEmailVerified(app.database.handle.db, user.id);
    return { ...fields, id: user.id, slug: user.slug, token: user.api_token, user };
  }

  /** A user registered through the factory, the address verified. */
  async function verifiedUser(): Promise<RegisteredUser> {
    const user = await registerUser(ctx.app);
    await markEmailVerified(ctx.database.handle.db, user.id);
    return user;
  }

  it('mails nothing for the device the account registered on', async () => {
    const user = await registerUser(ctx.app);
    // light-my-request's own user agent, the one registerUser used.
    expectOk(await postForm(ctx.app, '/v1/auth/login/email', { email: user.email, password: user.password }));
    expect(await alertsTo(user.email)).toEqual([]);
  });

  it('mails a sign-in from a new device once, naming it, the IP and what to do; a known device gets none', async () => {
    const user = await registerFrom(ctx, USER_AGENTS.chromeMac);
    expectOk(await login(ctx, user, USER_AGENTS.chromeMac));
    expect(await alertsTo(user.email)).toEqual([]);
    // A burst from new devices: one mail, however many sign-ins, at once or after each other.
    const burst = await Promise.all([
      login(ctx, user, USER_AGENTS.safariIphone),
      login(ctx, user, USER_AGENTS.firefoxWindows),
      login(ctx, user, USER_AGENTS.chromeAndroid),
    ]);
    for (const res of burst) expectOk(res);
    expectOk(await login(ctx, user, `${USER_AGENTS.app} other`));
    const alerts = await alertsTo(user.email);
    expect(alerts).toHaveLength(1);
    const [alert] = alerts;
    expect(alert?.subject).toBe('New sign-in to your account');
    expect(alert?.text).toContain('IP address: 127.0.0.1');
    expect(alert?.text).toMatch(
      /Device: (Safari on iPhone|Firefox on Windows|Chrome on Android|Accounts on iPhone)/,
    );
    expect(alert?.text).toContain('https://accounts.test/reset-password');
    expect(alert?.html).toContain('<a href="https://accounts.test/reset-password">');
  });

  it('takes a login that presents a token of the account for a known device, whatever its user agent', async () => {
    const user = await registerFrom(ctx, USER_AGENTS.chromeMac);
    expectOk(await login(ctx, user, USER_AGENTS.firefoxWindows, bearer(user.token)));
    expect(await alertsTo(user.email)).toEqual([]);
  });

  it('mails a password change in the language of the request', async () => {
    const user = await verifiedUser();
    const res = await postForm(
      ctx.app,
      '/v1/user/update',
      { password: 'A-brand-new-passphrase', current_password: user.password },
      { ...bearer(user.token), 'accept-language': 'ko-KR,ko;q=0.9', 'user-agent': USER_AGENTS.safariIphone },
    );
    expectOk(res);
    const [alert, ...more] = await alertsTo(user.email);
    expect(more).toEqual([]);
    expect(alert?.subject).toBe('비밀번호가 변경되었습니다');
    expect(alert?.text).toContain('기기: Safari on iPhone');
  });

  it('mails an email change to the old address, with the way back', async () => {
    const user = await verifiedUser();
    const newEmail = `moved${unique()}@example.com`;
    const res = await postForm(
      ctx.app,
      '/v1/user/update',
      { email: newEmail, current_password: user.password },
      bearer(user.token),
    );
    expectOk(res);
    const [alert, ...more] = await alertsTo(user.email);
    expect(more).toEqual([]);
    expect(alert?.subject).toBe('Your email address was changed');
    expect(alert?.text).toContain('https://accounts.test/reset-password');
    expect(await alertsTo(newEmail)).toEqual([]);
  });

  describe('with SECURITY_ALERTS=false', () => {
    beforeAll(async () => {
      quiet = await createTestApp(backend, { ...env(), SECURITY_ALERTS: 'false' });
    });
    afterAll(async () => {
      if (quiet) await closeTestApp(quiet);
    });

    it('sends none with SECURITY_ALERTS=false, and still logs', async () => {
      const user = await registerFrom(quiet, USER_AGENTS.chromeMac);
      expectOk(await login(quiet, user, USER_AGENTS.safariIphone));
      expectOk(await login(quiet, user, USER_AGENTS.firefoxWindows));
      const res = await postForm(
        quiet.app,
        '/v1/user/update',
        { password: 'A-brand-new-passphrase', current_password: user.password },
        bearer(user.token),
      );
      expectOk(res);
      expect(await alertsTo(user.email, quiet)).toEqual([]);
      const logged = await quiet.database.handle.db
        .selectFrom('security_events')
        .select('type')
        .where('user_id', '=', user.id)
        .execute();
      expect(logged.map((row) => row.type).sort()).toEqual([
        'account_created',
        'password_changed',
        'sign_in',
        'sign_in',
      ]);
      // The sign-ins were from new devices all the same: only the mail is off.
      const signIns = await quiet.database.handle.db
        .selectFrom('security_events')
        .select('details')
        .where('user_id', '=', user.id)
        .where('type', '=', 'sign_in')
        .execute();
      expect(signIns.map((row) => row.details.new_device)).toEqual([true, true]);
    });
  });
});
