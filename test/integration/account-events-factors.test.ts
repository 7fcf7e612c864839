import { Readable } from 'node:stream';
import { hash } from '@node-rs/bcrypt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeProvider, startFakeProvider } from '../../src/dev/fake-provider.js';
import { readImportRecords } from '../../src/modules/users/import-reader.js';
import {
  accountEventsOf,
  allAccountEvents,
  eventsFrom,
  type StoredEvent,
  typed,
} from '../helpers/account-events.js';
import { closeTestApp, createTestApp, type TestApp } from '../helpers/app.js';
import { backends } from '../helpers/database.js';
import { bearer, registerUser, unique } from '../helpers/factories.js';
import { expectOk, postForm } from '../helpers/http.js';
import { latestToken } from '../helpers/mail.js';
import { providerLogin, providerSignUp } from '../helpers/providers.js';
import {
  enableTotp,
  expectSecondFactorRequired,
  loginByEmail,
  secondFactor,
} from '../helpers/second-factor.js';
import { buildTestOperatorServices } from '../helpers/services.js';
import { currentCode } from '../helpers/totp.js';
import { PASSKEY_ENV, PASSKEY_ORIGIN, passkeyFlows, SoftwareAuthenticator } from '../helpers/webauthn.js';

/** The newest session of a user: its row id (what session events name). */
async function newestSession(ctx: TestApp, userId: string): Promise<string | undefined> {
  const row = await ctx.database.handle.db
    .selectFrom('api_tokens')
    .select('id')
    .where('user_id', '=', userId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .executeTakeFirst();
  return row?.id;
}

/**
 * The events of the other ways in — a provider, a second factor, a passkey, a reset link — and of the
 * factors themselves; and, over everything this file wrote, that no event carries a secret.
 */
describe.each(backends)('%s: account events of providers, factors and resets', (backend) => {
  let fake: FakeProvider;
  let ctx: TestApp;
  /** Every secret this file's flows handled: none may appear in any event. */
  const secrets: string[] = [];

  beforeAll(async () => {
    fake = await startFakeProvider({ clientId: 'accounts-test' });
    ctx = await createTestApp(backend, { ...fake.env('alpha', 'userinfo'), ...PASSKEY_ENV });
  });
  afterAll(async () => {
    if (ctx) await closeTestApp(ctx);
    if (fake) await fake.close();
  });

  it('a provider sign-up and sign-in name the provider', async () => {
    const alphaId = `alpha-${unique()}`;
    const accessToken = fake.issueAccessToken(alphaId);
    secrets.push(accessToken);
    const form = providerSignUp('alpha', alphaId, accessToken);
    const signedUp = expectOk<{ user: { id: string; slug: string; created_at: string; api_token: string } }>(
      await postForm(ctx.app, '/v1/auth/register', form),
    );
    const { id } = signedUp.user;
    secrets.push(signedUp.user.api_token);
    const next = await eventsFrom(ctx.database.handle, id);
    const row = await ctx.database.handle.db
      .selectFrom('users')
      .select('created_at')
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    const consents = await ctx.database.handle.db
      .selectFrom('consent_records')
      .select(['key', 'version'])
      .where('user_id', '=', id)
      .orderBy('key')
      .execute();
    expect(consents.length).toBeGreaterThan(0);
    // Its consents travel in user.created: no consent.changed of its own.
    const created = (await allAccountEvents(ctx.database.handle)).filter((event) => event.user_id === id);
    expect(typed(created)).toEqual([
      {
        type: 'session.created',
        data: { user_id: id, session_id: await newestSession(ctx, id), method: 'provider' },
      },
      {
        type: 'user.created',
        data: {
          id,
          email: form.email,
          username: form.username,
          slug: signedUp.user.slug,
          created_at: row.created_at.toISOString(),
          method: 'alpha',
          consents: consents.map(({ key, version }) => ({ key, version, agreed: true })),
        },
      },
    ]);
    const signedIn = expectOk<{ user: { api_token: string } }>(
      await providerLogin(ctx.app, 'alpha', alphaId, fake.issueAccessToken(alphaId)),
    );
    secrets.push(signedIn.user.api_token);
    expect(typed(await next())).toEqual([
      {
        type: 'session.created',
        data: { user_id: id, session_id: await newestSession(ctx, id), method: 'provider' },
      },
    ]);
  });

  it('TOTP on, a sign-in completed with it, off by the user, on again and reset by an operator', async () => {
    const user = await registerUser(ctx.app);
    const next = await eventsFrom(ctx.database.handle, user.id);
    const twoFactor = await enableTotp(ctx.app, user);
    secrets.push(user.token, user.password, twoFactor.secret, ...twoFactor.recoveryCodes);
    expect(typed(await next())).toEqual([{ type: 'second_factor.enabled', data: { user_id: user.id } }]);
    // The password alone makes a challenge, not a session: no event.
    const challenge = expectSecondFactorRequired(await loginByEmail(ctx.app, user));
    secrets.push(challenge);
    expect(await next()).toEqual([]);
    const completed = expectOk<{ user: { api_token: string } }>(
      await secondFactor(ctx.app, { challenge, code: currentCode(twoFactor.secret) }),
    );
    secrets.push(completed.user.api_token);
    expect(typed(await next())).toEqual([
      {
        type: 'session.created',
        data: { user_id: user.id, session_id: await newestSession(ctx, user.id), method: 'second_factor' },
      },
    ]);
    const disable = { current_password: user.password, recovery_code: twoFactor.recoveryCodes[0] as string };
    expectOk(await postForm(ctx.app, '/v1/user/2fa/disable', disable, bearer(user.token)));
    expect(typed(await next())).toEqual([{ type: 'second_factor.disabled', data: { user_id: user.id } }]);
    const again = await enableTotp(ctx.app, user);
    secrets.push(again.secret, ...again.recoveryCodes);
    await next();
    const operator = buildTestOperatorServices(ctx);
    const account = await ctx.database.handle.db
      .selectFrom('users')
      .selectAll()
      .where('id', '=', user.id)
      .executeTakeFirstOrThrow();
    expect(await operator.secondFactor.reset(account, 'en')).toBe('disabled');
    expect(typed(await next())).toEqual([{ type: 'second_factor.disabled', data: { user_id: user.id } }]);
  });

  it('a passkey added, used to sign in, and removed', async () => {
    const user = await registerUser(ctx.app);
    const flows = passkeyFlows(ctx.app);
    const authenticator = new SoftwareAuthenticator(PASSKEY_ORIGIN);
    const next = await eventsFrom(ctx.database.handle, user.id);
    const passkey = await flows.addPasskey(user.token, authenticator, { current_password: user.password });
    expect(typed(await next())).toEqual([
      { type: 'passkey.added', data: { user_id: user.id, passkey_id: passkey.id } },
    ]);
    const { options, challenge_id } = await flows.signInOptions();
    const signedIn = expectOk<{ user: { api_token: string } }>(
      await flows.post('/auth/login/passkey', { challenge_id, response: authenticator.get(options) }),
    );
    secrets.push(signedIn.user.api_token);
    expect(typed(await next())).toEqual([
      {
        type: 'session.created',
        data: { user_id: user.id, session_id: await newestSession(ctx, user.id), method: 'passkey' },
      },
    ]);
    const removed = await flows.post(
      `/user/passkeys/${passkey.id}/remove`,
      { current_password: user.password },
      user.token,
    );
    expectOk(removed);
    expect(typed(await next())).toEqual([
      { type: 'passkey.removed', data: { user_id: user.id, passkey_id: passkey.id } },
    ]);
  });

  it('a password reset revokes every session, verifies the address and signs in by its link', async () => {
    const user = await registerUser(ctx.app);
    const [before] = [await newestSession(ctx, user.id)];
    const next = await eventsFrom(ctx.database.handle, user.id);
    expectOk(await postForm(ctx.app, '/v1/auth/password/forgot', { email: user.email }));
    await ctx.mailer.idle();
    const token = await latestToken(ctx.database.handle, user.email, 'password_reset');
    const password = `Another-Harbour-${unique()}`;
    secrets.push(token, password);
    const reset = expectOk<{ user: { api_token: string } }>(
      await postForm(ctx.app, '/v1/auth/password/reset', { token, password }),
    );
    secrets.push(reset.user.api_token);
    expect(typed(await next())).toEqual([
      {
        type: 'session.created',
        data: { user_id: user.id, session_id: await newestSession(ctx, user.id), method: 'email_link' },
      },
      { type: 'session.revoked', data: { user_id: user.id, session_id: before, reason: 'password_changed' } },
      { type: 'user.email_verified', data: { id: user.id, email: user.email } },
    ]);
  });

  it('the operator commands: a user import, a revoke of every session, an immediate deletion', async () => {
    const operator = buildTestOperatorServices(ctx);
    const taken = await registerUser(ctx.app);
    const legacyHash = `$2y$${(await hash('old app password 1', 4)).slice(4)}`;
    const name = `member${unique()}`;
    const csv = [
      'email,username,slug,gender,created_at,password',
      `${name}@old.example.com,${name},${name}-slug,1,2020-11-12T13:14:15.123+09:00,${legacyHash}`,
      // Already present (the email is taken): not imported, no event.
      `${taken.email},other${name},other-${name},1,2020-11-12T13:14:15.123+09:00,${legacyHash}`,
    ].join('\n');
    const summary = await operator.importer.import(readImportRecords(Readable.from([`${csv}\n`]), 'csv'));
    expect(summary.imported).toBe(1);
    const imported = await ctx.database.handle.db
      .selectFrom('users')
      .select('id')
      .where('username', '=', name)
      .executeTakeFirstOrThrow();
    expect(typed(await accountEventsOf(ctx.database.handle, imported.id))).toEqual([
      {
        type: 'user.created',
        data: {
          id: imported.id,
          email: `${name}@old.example.com`,
          username: name,
          slug: `${name}-slug`,
          created_at: '2020-11-12T04:14:15.123Z',
          method: 'import',
          consents: [],
        },
      },
    ]);
    const next = await eventsFrom(ctx.database.handle, taken.id);
    const session = await newestSession(ctx, taken.id);
    expect(await operator.tokens.revokeAllOf(taken.id)).toBe(1);
    expect(typed(await next())).toEqual([
      { type: 'session.revoked', data: { user_id: taken.id, session_id: session, reason: 'revoked' } },
    ]);
    expectOk(
      await postForm(ctx.app, '/v1/auth/login/email', { email: taken.email, password: taken.password }),
    );
    const last = await newestSession(ctx, taken.id);
    await next();
    expect(await operator.deletion.erase(taken)).toEqual({ id: taken.id, username: taken.username });
    expect(typed(await next())).toEqual([
      { type: 'session.revoked', data: { user_id: taken.id, session_id: last, reason: 'deletion' } },
      { type: 'user.deleted', data: { id: taken.id } },
    ]);
  });

  it('no event of this file carries a token, password, hash, TOTP secret or push token', async () => {
    const user = await registerUser(ctx.app);
    const pushToken = `push-${unique()}`;
    const device = { device_id: `dev-${unique()}`, platform: 'ios', push_token: pushToken };
    expectOk(await postForm(ctx.app, '/v1/user/device/update', device, bearer(user.token)));
    const hashes = await ctx.database.handle.db.selectFrom('users').select('password_hash').execute();
    const stored = [...hashes.map((row) => row.password_hash), pushToken, user.token, user.password];
    const events: StoredEvent[] = await allAccountEvents(ctx.database.handle);
    expect(new Set(events.map((event) => event.type)).size).toBeGreaterThanOrEqual(9);
    const texts = events.map((event) => JSON.stringify(event.data));
    for (const secret of [...secrets, ...stored]) {
      if (!secret) continue;
      expect(texts.filter((text) => text.includes(secret))).toEqual([]);
    }
    // Nor a field named like one: the only id of a session is its row's.
    const keys = new Set(events.flatMap((event) => Object.keys(event.data)));
    expect([...keys].filter((key) => /token|secret|password|hash|code/i.test(key))).toEqual([]);
  });
});
