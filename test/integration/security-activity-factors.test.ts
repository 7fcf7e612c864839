import type { ParsedMail } from 'mailparser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SecondFactorReset } from '../../src/account/second-factor/operator-reset.js';
import { type FakeProvider, startFakeProvider } from '../../src/dev/fake-provider.js';
import { SecondFactorRepo } from '../../src/modules/second-factor/repo.js';
import { markEmailVerified } from '../helpers/account-rows.js';
import { closeTestApp, createTestApp, type TestApp } from '../helpers/app.js';
import { backends } from '../helpers/database.js';
import { bearer, type RegisteredUser, registerUser, unique } from '../helpers/factories.js';
import { expectOk, expectValidationError, postForm } from '../helpers/http.js';
import { recipients, startTestSmtp, type TestSmtp } from '../helpers/mail.js';
import { providerSignUp } from '../helpers/providers.js';
import { awayFromStepEdge, enableTotp } from '../helpers/second-factor.js';
import { eventCounts, eventsOf, USER_AGENTS } from '../helpers/security-events.js';
import { buildTestServices } from '../helpers/services.js';
import { currentCode } from '../helpers/totp.js';
import { PASSKEY_ENV, PASSKEY_ORIGIN, passkeyFlows, SoftwareAuthenticator } from '../helpers/webauthn.js';

const INVALID_CODE = { code: ['The code is invalid.'] };

/** Passkey and second-factor changes in the security log, each with its alert mail (a real SMTP server). */
describe.each(backends)('%s: security events of passkeys and the second factor', (backend) => {
  let smtp: TestSmtp;
  let fake: FakeProvider;
  let ctx: TestApp;

  beforeAll(async () => {
    smtp = await startTestSmtp();
    fake = await startFakeProvider({ clientId: 'accounts-test' });
    ctx = await createTestApp(backend, {
      ...fake.env('alpha', 'userinfo'),
      ...PASSKEY_ENV,
      MAIL_TRANSPORT: 'smtp',
      SMTP_URL: smtp.url,
      PUBLIC_URL: PASSKEY_ORIGIN,
    });
  });
  afterAll(async () => {
    if (ctx) await closeTestApp(ctx);
    await fake?.close();
    await smtp?.close();
  });

  const flows = () => passkeyFlows(ctx.app);

  /** A registered user whose address is verified: alerts go only to such. */
  async function verifiedUser(): Promise<RegisteredUser> {
    const user = await registerUser(ctx.app);
    await markEmailVerified(ctx.database.handle.db, user.id);
    return user;
  }

  /** The alert mails (not the verification mails) this address received, once every send has finished. */
  async function alertsTo(address: string): Promise<ParsedMail[]> {
    await ctx.mailer.idle();
    return smtp.mails.filter(
      (mail) => recipients(mail).includes(address.toLowerCase()) && !/confirm|확인/i.test(mail.subject ?? ''),
    );
  }

  const subjects = async (address: string) => (await alertsTo(address)).map((mail) => mail.subject);
  /** The user's events besides its registration, oldest first. */
  const eventsAfterSignUp = async (userId: string) =>
    (await eventsOf(ctx.database.handle, userId)).filter((event) => event.type !== 'account_created');

  it('logs an added, renamed and removed passkey once each, naming it; adding and removing are mailed', async () => {
    const user = await verifiedUser();
    const authenticator = new SoftwareAuthenticator(PASSKEY_ORIGIN);
    const proof = { current_password: user.password };
    const passkey = await flows().addPasskey(user.token, authenticator, proof, 'Minji phone');
    expectOk(await flows().post(`/user/passkeys/${passkey.id}/rename`, { name: '민지 노트북' }, user.token));
    // Refused: a wrong password removes nothing and logs nothing.
    expectValidationError(
      await flows().post(
        `/user/passkeys/${passkey.id}/remove`,
        { current_password: 'not-it-at-all' },
        user.token,
      ),
      { current_password: ['The current password is incorrect.'] },
    );
    expectOk(await flows().post(`/user/passkeys/${passkey.id}/remove`, proof, user.token));
    const events = await eventsAfterSignUp(user.id);
    expect(events.map((event) => [event.type, event.details])).toEqual([
      ['passkey_added', { passkey_id: passkey.id, passkey_name: 'Minji phone' }],
      ['passkey_renamed', { passkey_id: passkey.id, passkey_name: '민지 노트북' }],
      ['passkey_removed', { passkey_id: passkey.id, passkey_name: '민지 노트북' }],
    ]);
    expect(events[0]?.ip).toBe('127.0.0.1');
    const alerts = await alertsTo(user.email);
    expect(alerts.map((mail) => mail.subject)).toEqual(['A passkey was added', 'A passkey was removed']);
    expect(alerts[0]?.text).toContain('A passkey (“Minji phone”) was added');
    expect(alerts[1]?.html).toContain('(“민지 노트북”)');
  });

  it('logs and mails nothing when removing the last way to sign in is refused', async () => {
    const alphaId = `a-${unique()}`;
    const fields = providerSignUp('alpha', alphaId, fake.issueAccessToken(alphaId));
    const token = expectOk<{ user: { id: string; api_token: string } }>(
      await postForm(ctx.app, '/v1/auth/register', fields),
    ).user;
    const alphaProof = () => ({ alpha_user_id: alphaId, alpha_access_token: fake.issueAccessToken(alphaId) });
    const authenticator = new SoftwareAuthenticator(PASSKEY_ORIGIN);
    const passkey = await flows().addPasskey(token.api_token, authenticator, alphaProof());
    expectOk(await flows().post('/user/providers/alpha/unlink', alphaProof(), token.api_token));
    expectValidationError(
      await flows().post(
        `/user/passkeys/${passkey.id}/remove`,
        await flows().reauthProof(token.api_token, authenticator),
        token.api_token,
      ),
      {
        passkey: [
          'This passkey is the only way to sign in; set a password, link a provider or add another passkey first.',
        ],
      },
    );
    const counts = await eventCounts(ctx.database.handle, token.id);
    expect(counts).toEqual({ account_created: 1, passkey_added: 1, provider_unlinked: 1 });
  });

  it('logs turning the second factor on, new recovery codes and turning it off, each mailed once', async () => {
    await awayFromStepEdge();
    const user = await verifiedUser();
    const headers = { ...bearer(user.token), 'user-agent': USER_AGENTS.firefoxWindows };
    const setup = expectOk<{ secret: string }>(
      await postForm(ctx.app, '/v1/user/2fa/totp/setup', { current_password: user.password }, headers),
    );
    // A code of no step near now: every refused request below enables, replaces or removes nothing.
    const wrong = () => String((Number(currentCode(setup.secret)) + 1) % 1_000_000).padStart(6, '0');
    const enable = (code: string) => postForm(ctx.app, '/v1/user/2fa/totp/enable', { code }, headers);
    expectValidationError(await enable(wrong()), INVALID_CODE);
    expect(await eventsAfterSignUp(user.id)).toEqual([]);
    // Each code taken when it is sent, of a later step than the one before (a code works once).
    const { recovery_codes } = expectOk<{ recovery_codes: string[] }>(
      await enable(currentCode(setup.secret, -1)),
    );
    const withProof = (path: string, fields: Record<string, string>) =>
      postForm(ctx.app, `/v1/user/2fa/${path}`, { current_password: user.password, ...fields }, headers);
    expectValidationError(await withProof('recovery-codes/regenerate', { code: wrong() }), INVALID_CODE);
    const renewed = expectOk<{ recovery_codes: string[] }>(
      await withProof('recovery-codes/regenerate', { code: currentCode(setup.secret) }),
    );
    expectValidationError(await withProof('disable', { code: wrong() }), INVALID_CODE);
    // A code the regeneration replaced is refused too.
    expectValidationError(await withProof('disable', { recovery_code: recovery_codes[0] as string }), {
      recovery_code: ['The recovery code is invalid.'],
    });
    expectOk(await withProof('disable', { recovery_code: renewed.recovery_codes[0] as string }));
    const events = await eventsAfterSignUp(user.id);
    expect(events.map((event) => [event.type, event.details])).toEqual([
      ['second_factor_enabled', { factor: 'totp' }],
      ['recovery_codes_regenerated', { count: 10 }],
      ['second_factor_disabled', { by: 'user' }],
    ]);
    expect(events.map((event) => event.user_agent)).toEqual(Array(3).fill(USER_AGENTS.firefoxWindows));
    const alerts = await alertsTo(user.email);
    expect(alerts.map((mail) => mail.subject)).toEqual([
      'Two-step verification was turned on',
      'New recovery codes were made',
      'Two-step verification was turned off',
    ]);
    expect(alerts[2]?.text).toContain('Device: Firefox on Windows');
    expect(alerts[2]?.text).toContain(
      'Two-step verification was turned off: signing in no longer needs a code.',
    );
  });

  it('mails in Korean for a Korean request', async () => {
    const user = await verifiedUser();
    const korean = { ...bearer(user.token), 'accept-language': 'ko-KR,ko;q=0.9' };
    const options = expectOk<{ options: Parameters<SoftwareAuthenticator['create']>[0] }>(
      await flows().post('/user/passkeys/options', { current_password: user.password }, user.token),
    );
    const response = new SoftwareAuthenticator(PASSKEY_ORIGIN).create(options.options);
    expectOk(
      await ctx.app.inject({
        method: 'POST',
        url: '/v1/user/passkeys/add',
        headers: { ...korean, 'content-type': 'application/json' },
        payload: JSON.stringify({ response, name: '폰' }),
      }),
    );
    const [alert, ...more] = await alertsTo(user.email);
    expect(more).toEqual([]);
    expect(alert?.subject).toBe('패스키가 추가되었습니다');
    expect(alert?.text).toContain('패스키(“폰”)가 추가되어');
  });

  it("logs an operator's reset as second_factor_disabled by the operator, and mails it", async () => {
    const user: RegisteredUser = await enableTotp(ctx.app, await verifiedUser());
    const services = buildTestServices(ctx);
    const reset = new SecondFactorReset(
      ctx.database.handle.db,
      new SecondFactorRepo(ctx.database.handle.db),
      services.activity,
    );
    const account = { id: user.id, email: user.email, username: user.username, email_verified: true };
    expect(await reset.reset(account, 'ko')).toBe('disabled');
    // Nothing left to remove: nothing logged, nothing mailed.
    expect(await reset.reset(account, 'ko')).toBe('nothing');
    const events = await eventsAfterSignUp(user.id);
    expect(events.map((event) => [event.type, event.details, event.ip])).toEqual([
      ['second_factor_enabled', { factor: 'totp' }, '127.0.0.1'],
      ['second_factor_disabled', { by: 'operator' }, null],
    ]);
    expect(await subjects(user.email)).toEqual([
      'Two-step verification was turned on',
      '2단계 인증이 꺼졌습니다',
    ]);
    const [, operatorAlert] = await alertsTo(user.email);
    expect(operatorAlert?.text).toContain('요청에 따라 고객지원팀이 2단계 인증을 껐습니다.');
  });

  it('clears a setup never enabled without logging or mailing a second factor turned off', async () => {
    const user = await verifiedUser();
    // A setup that never got its first code: sign-in never asked for it.
    expectOk(
      await postForm(
        ctx.app,
        '/v1/user/2fa/totp/setup',
        { current_password: user.password },
        bearer(user.token),
      ),
    );
    const reset = new SecondFactorReset(
      ctx.database.handle.db,
      new SecondFactorRepo(ctx.database.handle.db),
      buildTestServices(ctx).activity,
    );
    const account = { id: user.id, email: user.email, username: user.username, email_verified: true };
    expect(await reset.reset(account, 'en')).toBe('cleared_setup');
    const left = await ctx.database.handle.db
      .selectFrom('totp_credentials')
      .select('user_id')
      .where('user_id', '=', user.id)
      .execute();
    expect(left).toEqual([]);
    expect(await reset.reset(account, 'en')).toBe('nothing');
    expect(await eventsAfterSignUp(user.id)).toEqual([]);
    expect(await subjects(user.email)).toEqual([]);
  });
});
