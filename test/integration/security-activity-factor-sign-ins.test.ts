import type { ParsedMail } from 'mailparser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { markEmailVerified } from '../helpers/account-rows.js';
import { closeTestApp, createTestApp, type TestApp } from '../helpers/app.js';
import { backends } from '../helpers/database.js';
import { type RegisteredUser, registerUser, registrationForm } from '../helpers/factories.js';
import { expectOk, expectValidationError, postForm } from '../helpers/http.js';
import { recipients, startTestSmtp, type TestSmtp } from '../helpers/mail.js';
import { expectAuthenticationFailed } from '../helpers/providers.js';
import { awayFromStepEdge, enableTotp, expectSecondFactorRequired } from '../helpers/second-factor.js';
import { eventCounts, eventsOf, USER_AGENTS } from '../helpers/security-events.js';
import { currentCode } from '../helpers/totp.js';
import {
  PASSKEY_ENV,
  PASSKEY_ORIGIN,
  passkeyFlows,
  SoftwareAuthenticator,
  type Tampering,
} from '../helpers/webauthn.js';

/** Sign-ins through the second factor and with a passkey in the security log: the sign-in, its failures. */
describe.each(backends)('%s: security events of second-factor and passkey sign-ins', (backend) => {
  let smtp: TestSmtp;
  let ctx: TestApp;

  beforeAll(async () => {
    smtp = await startTestSmtp();
    ctx = await createTestApp(backend, { ...PASSKEY_ENV, MAIL_TRANSPORT: 'smtp', SMTP_URL: smtp.url });
  });
  afterAll(async () => {
    if (ctx) await closeTestApp(ctx);
    await smtp?.close();
  });

  const events = (user: { id: string }, type: string) =>
    eventsOf(ctx.database.handle, user.id).then((all) => all.filter((event) => event.type === type));

  /** The new-device alerts this address received, once every send has finished. */
  async function newDeviceAlerts(address: string): Promise<ParsedMail[]> {
    await ctx.mailer.idle();
    return smtp.mails.filter(
      (mail) =>
        recipients(mail).includes(address.toLowerCase()) && mail.subject === 'New sign-in to your account',
    );
  }

  /** A user registered from `agent` (the device of record), with the second factor on. */
  async function twoFactorUserFrom(agent: string) {
    const fields = registrationForm();
    const res = await postForm(ctx.app, '/v1/auth/register', fields, { 'user-agent': agent });
    const { user } = expectOk<{ user: { id: string; api_token: string; slug: string } }>(res);
    // Alerts go only to a verified address.
    await markEmailVerified(ctx.database.handle.db, user.id);
    const registered: RegisteredUser = {
      ...fields,
      id: user.id,
      slug: user.slug,
      token: user.api_token,
      user,
    };
    return enableTotp(ctx.app, registered);
  }

  const login = (user: RegisteredUser, agent: string, password = user.password) =>
    postForm(ctx.app, '/v1/auth/login/email', { email: user.email, password }, { 'user-agent': agent });
  const complete = (fields: Record<string, string>, agent: string) =>
    postForm(ctx.app, '/v1/auth/login/second-factor', fields, { 'user-agent': agent });

  it('logs no sign-in at the challenge, and one when the code completes it', async () => {
    await awayFromStepEdge();
    const user = await twoFactorUserFrom(USER_AGENTS.chromeMac);
    const challenge = expectSecondFactorRequired(await login(user, USER_AGENTS.chromeMac));
    // Asked twice: still no sign-in, and a challenge is no failure either.
    expectSecondFactorRequired(await login(user, USER_AGENTS.chromeMac));
    expect(await eventCounts(ctx.database.handle, user.id)).toEqual({
      account_created: 1,
      second_factor_enabled: 1,
    });
    expectOk(await complete({ challenge, code: currentCode(user.secret) }, USER_AGENTS.chromeMac));
    const signIns = await events(user, 'sign_in');
    expect(signIns.map((event) => event.details)).toEqual([
      { method: 'email', second_factor: 'totp', new_device: false },
    ]);
    expect(signIns[0]?.user_agent).toBe(USER_AGENTS.chromeMac);
    expect(await newDeviceAlerts(user.email)).toEqual([]);
  });

  it('logs a recovery-code sign-in from a new device as such, and mails the new-device alert', async () => {
    const user = await twoFactorUserFrom(USER_AGENTS.chromeMac);
    const challenge = expectSecondFactorRequired(await login(user, USER_AGENTS.safariIphone));
    const code = user.recoveryCodes[0] as string;
    expectOk(await complete({ challenge, recovery_code: code }, USER_AGENTS.safariIphone));
    expect((await events(user, 'sign_in')).map((event) => event.details)).toEqual([
      { method: 'email', second_factor: 'recovery_code', new_device: true },
    ]);
    const alerts = await newDeviceAlerts(user.email);
    expect(alerts).toHaveLength(1);
    expect(alerts[0]?.text).toContain('Device: Safari on iPhone');
  });

  it('counts wrong codes at the second-factor step with wrong passwords, in one row', async () => {
    await awayFromStepEdge();
    const user = await twoFactorUserFrom(USER_AGENTS.chromeMac);
    expectAuthenticationFailed(await login(user, USER_AGENTS.chromeMac, 'not-the-password-at-all'));
    const challenge = expectSecondFactorRequired(await login(user, USER_AGENTS.chromeMac));
    const wrong = String((Number(currentCode(user.secret)) + 1) % 1_000_000).padStart(6, '0');
    expectValidationError(await complete({ challenge, code: wrong }, USER_AGENTS.chromeMac), {
      code: ['The code is invalid.'],
    });
    expectValidationError(
      await complete({ challenge, recovery_code: 'aaaaa-bbbbb' }, USER_AGENTS.chromeMac),
      {
        recovery_code: ['The recovery code is invalid.'],
      },
    );
    const failures = await events(user, 'sign_in_failed');
    expect(failures).toHaveLength(1);
    expect(failures[0]?.details).toMatchObject({ method: 'email', count: 3 });
    expect(await events(user, 'sign_in')).toEqual([]);
  });

  describe('with a passkey', () => {
    const flows = () => passkeyFlows(ctx.app);

    /** `agent` undefined: light-my-request's own user agent, the one registerUser used. */
    async function passkeySignIn(
      authenticator: SoftwareAuthenticator,
      agent: string | undefined,
      tampering: Tampering = {},
    ) {
      const { options, challenge_id } = await flows().signInOptions();
      const response = authenticator.get(options, authenticator.credentials[0], tampering);
      return ctx.app.inject({
        method: 'POST',
        url: '/v1/auth/login/passkey',
        headers: { 'content-type': 'application/json', ...(agent ? { 'user-agent': agent } : {}) },
        payload: JSON.stringify({ challenge_id, response }),
      });
    }

    async function userWithPasskey() {
      const user = await registerUser(ctx.app);
      await markEmailVerified(ctx.database.handle.db, user.id);
      const authenticator = new SoftwareAuthenticator(PASSKEY_ORIGIN);
      await flows().addPasskey(user.token, authenticator, { current_password: user.password });
      return { user, authenticator };
    }

    it('logs a passkey sign-in with method passkey, with the new-device check and alert', async () => {
      const { user, authenticator } = await userWithPasskey();
      // The device the account registered on, then another.
      expectOk(await passkeySignIn(authenticator, undefined));
      expectOk(await passkeySignIn(authenticator, USER_AGENTS.chromeAndroid));
      expect((await events(user, 'sign_in')).map((event) => event.details)).toEqual([
        { method: 'passkey', new_device: false },
        { method: 'passkey', new_device: true },
      ]);
      const alerts = await newDeviceAlerts(user.email);
      expect(alerts).toHaveLength(1);
      expect(alerts[0]?.text).toContain('Device: Chrome on Android');
    });

    it("counts failed assertions of a known passkey on its account's row; an unknown one logs nothing", async () => {
      const { user, authenticator } = await userWithPasskey();
      expectAuthenticationFailed(await passkeySignIn(authenticator, USER_AGENTS.app, { badSignature: true }));
      expectAuthenticationFailed(
        await passkeySignIn(authenticator, USER_AGENTS.app, { origin: 'https://evil.example.net' }),
      );
      const failures = await events(user, 'sign_in_failed');
      expect(failures).toHaveLength(1);
      expect(failures[0]?.details).toMatchObject({ method: 'passkey', count: 2 });
      expect(await events(user, 'sign_in')).toEqual([]);
      // A credential the service never registered names no account: nothing is logged anywhere.
      const stranger = new SoftwareAuthenticator(PASSKEY_ORIGIN);
      stranger.create({ challenge: 'c29tZQ', rp: { id: 'accounts.example.com' }, user: { id: 'dXNlcg' } });
      const logged = () =>
        ctx.database.handle.db
          .selectFrom('security_events')
          .select((eb) => eb.fn.countAll<string>().as('count'))
          .executeTakeFirstOrThrow()
          .then((row) => Number(row.count));
      const before = await logged();
      expectAuthenticationFailed(await passkeySignIn(stranger, USER_AGENTS.app));
      expect(await logged()).toBe(before);
    });
  });
});
