import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeProvider, startFakeProvider } from '../../src/dev/fake-provider.js';
import { closeTestApp, createTestApp, type TestApp } from '../helpers/app.js';
import { backends } from '../helpers/database.js';
import { bearer, type RegisteredUser, registerUser, unique } from '../helpers/factories.js';
import { expectError, expectOk, expectValidationError, postForm } from '../helpers/http.js';
import { latestToken } from '../helpers/mail.js';
import { expectAuthenticationFailed, providerLogin, providerSignUp } from '../helpers/providers.js';
import { eventCounts, eventsOf, USER_AGENTS } from '../helpers/security-events.js';

const INVALID_TOKEN = { token: ['The selected token is invalid.'] };

/** Every event an action of today writes, exactly once, and none for a refused action (but a failed sign-in). */
describe.each(backends)('%s: the security activity log', (backend) => {
  let fake: FakeProvider;
  let ctx: TestApp;

  beforeAll(async () => {
    fake = await startFakeProvider({ clientId: 'accounts-test' });
    const gamma = fake.env('gamma', 'userinfo');
    delete gamma.PROVIDER_GAMMA_TOKENINFO_URL;
    delete gamma.PROVIDER_GAMMA_CLIENT_ID;
    ctx = await createTestApp(backend, { ...fake.env('alpha', 'userinfo'), ...gamma });
  });
  afterAll(async () => {
    if (ctx) await closeTestApp(ctx);
    if (fake) await fake.close();
  });

  const counts = (user: { id: string }) => eventCounts(ctx.database.handle, user.id);
  const login = (user: RegisteredUser, password = user.password, agent: string = USER_AGENTS.chromeMac) =>
    postForm(ctx.app, '/v1/auth/login/email', { email: user.email, password }, { 'user-agent': agent });

  it('logs a registration, then each email sign-in once, with its IP, user agent and method', async () => {
    const user = await registerUser(ctx.app);
    expectOk(await login(user));
    const events = await eventsOf(ctx.database.handle, user.id);
    expect(events.map((event) => event.type)).toEqual(['account_created', 'sign_in']);
    expect(events[1]).toEqual({
      type: 'sign_in',
      ip: '127.0.0.1',
      user_agent: USER_AGENTS.chromeMac,
      // The registration came from another user agent (light-my-request's own): a device the account never used.
      details: { method: 'email', new_device: true },
    });
  });

  it('counts wrong passwords for an account in one row; an unknown email logs nothing', async () => {
    const user = await registerUser(ctx.app);
    for (let i = 0; i < 3; i++) expectAuthenticationFailed(await login(user, 'not-the-password'));
    expectValidationError(
      await postForm(ctx.app, '/v1/auth/login/email', {
        email: `nobody${unique()}@example.com`,
        password: 'x',
      }),
      { email: ['The selected email is invalid.'] },
    );
    const events = await eventsOf(ctx.database.handle, user.id);
    expect(events.map((event) => event.type)).toEqual(['account_created', 'sign_in_failed']);
    expect(events[1]?.details).toMatchObject({ method: 'email', count: 3 });
  });

  it('logs a password change and an email change once each; a refused update logs nothing', async () => {
    const user = await registerUser(ctx.app);
    const refused = await postForm(
      ctx.app,
      '/v1/user/update',
      { password: 'A-brand-new-passphrase', current_password: 'wrong-password' },
      bearer(user.token),
    );
    expectValidationError(refused, { current_password: ['The current password is incorrect.'] });
    expect(await counts(user)).toEqual({ account_created: 1 });
    const newEmail = `moved${unique()}@example.com`;
    const res = await postForm(
      ctx.app,
      '/v1/user/update',
      { password: 'A-brand-new-passphrase', email: newEmail, current_password: user.password },
      bearer(user.token),
    );
    expectOk(res);
    expect(await counts(user)).toEqual({ account_created: 1, password_changed: 1, email_changed: 1 });
    // Following the link mailed to the new address logs the verification; the used link logs nothing more.
    const token = await latestToken(ctx.database.handle, newEmail, 'email_verify');
    expectOk(await postForm(ctx.app, '/v1/auth/email/verify', { token }));
    expectValidationError(await postForm(ctx.app, '/v1/auth/email/verify', { token }), INVALID_TOKEN);
    expect(await counts(user)).toMatchObject({ email_verified: 1 });
  });

  it('logs a password reset once; a dead reset token logs nothing', async () => {
    const user = await registerUser(ctx.app);
    expectOk(await postForm(ctx.app, '/v1/auth/password/forgot', { email: user.email }));
    await ctx.mailer.idle();
    const token = await latestToken(ctx.database.handle, user.email, 'password_reset');
    expectOk(await postForm(ctx.app, '/v1/auth/password/reset', { token, password: 'Another-passphrase-1' }));
    const again = await postForm(ctx.app, '/v1/auth/password/reset', {
      token,
      password: 'Another-passphrase-2',
    });
    expectValidationError(again, INVALID_TOKEN);
    expect(await counts(user)).toEqual({ account_created: 1, password_reset: 1 });
  });

  it('logs a provider link and unlink once each; a repeat of either logs nothing', async () => {
    const user = await registerUser(ctx.app);
    const gammaId = `g${unique()}`;
    const link = () =>
      postForm(
        ctx.app,
        '/v1/user/providers/gamma/link',
        {
          gamma_user_id: gammaId,
          gamma_access_token: fake.issueAccessToken(gammaId),
          current_password: user.password,
        },
        bearer(user.token),
      );
    const unlink = () =>
      postForm(
        ctx.app,
        '/v1/user/providers/gamma/unlink',
        { current_password: user.password },
        bearer(user.token),
      );
    expectOk(await link());
    expectOk(await link());
    expectOk(await unlink());
    expectOk(await unlink());
    const events = await eventsOf(ctx.database.handle, user.id);
    expect(events.map((event) => [event.type, event.details])).toEqual([
      ['account_created', { method: 'email' }],
      ['provider_linked', { provider: 'gamma' }],
      ['provider_unlinked', { provider: 'gamma' }],
    ]);
  });

  it('logs a session revoked from the list, not an unknown id, and not a logout', async () => {
    const user = await registerUser(ctx.app);
    const second = expectOk<{ user: { api_token: string } }>(await login(user)).user.api_token;
    const { tokens } = expectOk<{ tokens: Array<{ id: string; current: boolean }> }>(
      await ctx.app.inject({ method: 'GET', url: '/v1/user/tokens', headers: bearer(user.token) }),
    );
    // The sign-up's token (this request's) and the login's.
    expect(tokens.map((token) => token.current).sort()).toEqual([false, true]);
    const other = tokens.find((token) => !token.current) as { id: string };
    const revoke = (id: string) => postForm(ctx.app, `/v1/user/tokens/${id}/revoke`, {}, bearer(user.token));
    expectOk(await revoke(other.id));
    expectError(await revoke(other.id), 404, 'NotFoundHttpException', 'Not Found');
    expectError(
      await revoke('019ab0c4-5e20-7b4c-9d1e-2f3a4b5c6d7e'),
      404,
      'NotFoundHttpException',
      'Not Found',
    );
    expectOk(await postForm(ctx.app, '/v1/auth/logout', {}, bearer(user.token)));
    expect(second).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const events = await eventsOf(ctx.database.handle, user.id);
    expect(events.map((event) => event.type)).toEqual(['account_created', 'sign_in', 'token_revoked']);
    expect(events[2]?.details).toEqual({ token_id: other.id });
  });

  it('logs a provider sign-up and sign-in, and a rejected token for a linked identity as a failure', async () => {
    const alphaId = `a${unique()}`;
    const signedUp = expectOk<{ user: { id: string } }>(
      await postForm(
        ctx.app,
        '/v1/auth/register',
        providerSignUp('alpha', alphaId, fake.issueAccessToken(alphaId)),
      ),
    );
    expectOk(await providerLogin(ctx.app, 'alpha', alphaId, fake.issueAccessToken(alphaId)));
    expectAuthenticationFailed(await providerLogin(ctx.app, 'alpha', alphaId, 'forged-token'));
    const events = await eventsOf(ctx.database.handle, signedUp.user.id);
    expect(events.map((event) => [event.type, event.details.method])).toEqual([
      ['account_created', 'alpha'],
      ['sign_in', 'alpha'],
      ['sign_in_failed', 'alpha'],
    ]);
  });
});

describe.each(backends.filter((backend) => backend === 'postgres'))(
  '%s: a failed-sign-in burst',
  (backend) => {
    let ctx: TestApp;
    beforeAll(async () => {
      ctx = await createTestApp(backend);
    });
    afterAll(async () => {
      if (ctx) await closeTestApp(ctx);
    });

    it('makes one counted row however many wrong passwords arrive at once', async () => {
      const user = await registerUser(ctx.app);
      const burst = Array.from({ length: 12 }, () =>
        postForm(ctx.app, '/v1/auth/login/email', { email: user.email, password: 'wrong-password' }),
      );
      for (const res of await Promise.all(burst)) expectAuthenticationFailed(res);
      const failed = (await eventsOf(ctx.database.handle, user.id)).filter(
        (e) => e.type === 'sign_in_failed',
      );
      expect(failed).toHaveLength(1);
      expect(failed[0]?.details.count).toBe(12);
    });
  },
);
