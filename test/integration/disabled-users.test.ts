import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Executor } from '../../src/db/transaction.js';
import { type FakeProvider, startFakeProvider } from '../../src/dev/fake-provider.js';
import { closeTestApp, createTestApp, type TestApp } from '../helpers/app.js';
import { backends } from '../helpers/database.js';
import { bearer, registerUser, unique } from '../helpers/factories.js';
import { expectError, expectOk, postForm, UNAUTHENTICATED } from '../helpers/http.js';
import { expectAuthenticationFailed, providerLogin, providerSignUp } from '../helpers/providers.js';

const ACCOUNT_DISABLED = [
  401,
  'Unauthorized',
  'This account is disabled.',
  { status: 'account_disabled' },
] as const;

/** What `accounts user disable` / `enable` write (the command itself is tested end to end in e2e/). */
async function setDisabled(db: Executor, id: string, disabled: boolean): Promise<void> {
  await db
    .updateTable('users')
    .set({ disabled_at: disabled ? new Date() : null })
    .where('id', '=', id)
    .execute();
}

describe.each(backends)('%s: disabled users', (backend) => {
  let fake: FakeProvider;
  let ctx: TestApp;

  beforeAll(async () => {
    fake = await startFakeProvider({ clientId: 'accounts-test' });
    ctx = await createTestApp(backend, fake.env('alpha', 'userinfo'));
  });
  afterAll(async () => {
    if (ctx) await closeTestApp(ctx);
    if (fake) await fake.close();
  });

  const db = () => ctx.database.handle.db;
  const userGet = (token: string) =>
    ctx.app.inject({ method: 'GET', url: '/v1/user/get', headers: bearer(token) });
  const loginEmail = (email: string, password: string) =>
    postForm(ctx.app, '/v1/auth/login/email', { email, password });

  it('refuses every existing token at once, and accepts them again once enabled', async () => {
    const me = await registerUser(ctx.app);
    const second = expectOk<{ user: { api_token: string } }>(await loginEmail(me.email, me.password)).user
      .api_token;
    expectOk(await userGet(me.token));
    await setDisabled(db(), me.id, true);
    for (const token of [me.token, second]) {
      expectError(await userGet(token), 401, ...UNAUTHENTICATED);
      expectError(
        await ctx.app.inject({ method: 'GET', url: `/v1/user/tokens?api_token=${token}` }),
        401,
        ...UNAUTHENTICATED,
      );
    }
    await setDisabled(db(), me.id, false);
    expect(expectOk<{ user: { id: string } }>(await userGet(me.token)).user.id).toBe(me.id);
    expectOk(await userGet(second));
  });

  it('refuses an email login with the right password as disabled, and a wrong one as before', async () => {
    const me = await registerUser(ctx.app);
    await setDisabled(db(), me.id, true);
    expectError(await loginEmail(me.email, me.password), ...ACCOUNT_DISABLED);
    expectAuthenticationFailed(await loginEmail(me.email, `${me.password}-wrong`));
    const tokensBefore = await db()
      .selectFrom('api_tokens')
      .select('id')
      .where('user_id', '=', me.id)
      .execute();
    expect(tokensBefore).toHaveLength(1);
    await setDisabled(db(), me.id, false);
    const token = expectOk<{ user: { api_token: string } }>(await loginEmail(me.email, me.password)).user
      .api_token;
    expectOk(await userGet(token));
  });

  it('refuses a provider login of a disabled account, and allows it again once enabled', async () => {
    const providerId = `alice-${unique()}`;
    const signedUp = expectOk<{ user: { id: string; api_token: string } }>(
      await postForm(
        ctx.app,
        '/v1/auth/register',
        providerSignUp('alpha', providerId, fake.issueAccessToken(providerId)),
      ),
    );
    await setDisabled(db(), signedUp.user.id, true);
    expectError(
      await providerLogin(ctx.app, 'alpha', providerId, fake.issueAccessToken(providerId)),
      ...ACCOUNT_DISABLED,
    );
    // A token the provider refuses is still the ordinary 401: nothing is said about the account.
    expectAuthenticationFailed(await providerLogin(ctx.app, 'alpha', providerId, 'forged-token'));
    expectError(await userGet(signedUp.user.api_token), 401, ...UNAUTHENTICATED);
    await setDisabled(db(), signedUp.user.id, false);
    expectOk(await providerLogin(ctx.app, 'alpha', providerId, fake.issueAccessToken(providerId)));
  });
});
