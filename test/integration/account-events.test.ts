import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { accountEventCount, accountEventsOf, eventsFrom, typed } from '../helpers/account-events.js';
import { useTestApp } from '../helpers/app.js';
import { backends } from '../helpers/database.js';
import { bearer, type RegisteredUser, registerUser, registrationForm, unique } from '../helpers/factories.js';
import { expectError, expectOk, expectValidationError, postForm } from '../helpers/http.js';
import { pngFixture } from '../helpers/images.js';
import { latestToken } from '../helpers/mail.js';
import { updatePicture } from '../helpers/media.js';
import { expectAuthenticationFailed } from '../helpers/providers.js';

const COMMIT_FAILED = [500, 'InternalServerError', 'Failed to commit transaction.', []] as const;

/** Each account change writes exactly its event, with the documented data; a change that fails writes none. */
describe.each(backends)('%s: account events written with the change', (backend) => {
  const ctx = useTestApp(backend);
  const handle = () => ctx.database.handle;
  const db = () => ctx.database.handle.db;

  /** The user's live sessions' ids, oldest first. */
  const sessionIds = async (userId: string) =>
    (
      await db()
        .selectFrom('api_tokens')
        .select('id')
        .where('user_id', '=', userId)
        .orderBy('created_at')
        .orderBy('id')
        .execute()
    ).map((row) => row.id);
  /** A password sign-in of `user`: a session of its own. */
  const signIn = async (user: RegisteredUser) =>
    expectOk<{ user: { api_token: string } }>(
      await postForm(ctx.app, '/v1/auth/login/email', { email: user.email, password: user.password }),
    );

  it('an email sign-up writes user.created with its consents, and its session, in its one statement', async () => {
    const user = await registerUser(ctx.app);
    const [session] = await sessionIds(user.id);
    const { rows } = await sql<{ slug: string; created_at: string }>`
      SELECT slug, to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS created_at
      FROM users WHERE id = ${user.id}::uuid`.execute(db());
    const consents = await db()
      .selectFrom('consent_records')
      .select(['key', 'version'])
      .where('user_id', '=', user.id)
      .orderBy('key')
      .execute();
    expect(consents.length).toBeGreaterThan(0);
    const events = typed(await accountEventsOf(handle(), user.id));
    // The consents it records travel in user.created (by key), not as consent.changed events of their own.
    expect(events).toEqual([
      { type: 'session.created', data: { user_id: user.id, session_id: session, method: 'password' } },
      {
        type: 'user.created',
        data: {
          id: user.id,
          email: user.email,
          username: user.username,
          slug: rows[0]?.slug,
          created_at: rows[0]?.created_at,
          method: 'email',
          consents: consents.map(({ key, version }) => ({ key, version, agreed: true })),
        },
      },
    ]);
  });

  it('a refused sign-up and one that fails after its events were built write no event', async () => {
    const taken = await registerUser(ctx.app);
    const before = await accountEventCount(handle());
    const res = await postForm(ctx.app, '/v1/auth/register', registrationForm({ email: taken.email }));
    expectValidationError(res, { email: ['The email has already been taken.'] });
    // The users row refused inside the statement whose CTEs wrote the events: all of it rolls back.
    await sql`ALTER TABLE users ADD CONSTRAINT test_refuse_users CHECK (false) NOT VALID`.execute(db());
    try {
      expectError(await postForm(ctx.app, '/v1/auth/register', registrationForm()), ...COMMIT_FAILED);
    } finally {
      await sql`ALTER TABLE users DROP CONSTRAINT test_refuse_users`.execute(db());
    }
    expect(await accountEventCount(handle())).toBe(before);
  });

  it('each sign-in makes session.created with the token row id; logout and revoke make session.revoked', async () => {
    const user = await registerUser(ctx.app);
    const next = await eventsFrom(handle(), user.id);
    const second = await signIn(user);
    const [first, made] = await sessionIds(user.id);
    expect(typed(await next())).toEqual([
      { type: 'session.created', data: { user_id: user.id, session_id: made, method: 'password' } },
    ]);
    // A wrong password writes nothing.
    const wrong = await postForm(ctx.app, '/v1/auth/login/email', {
      email: user.email,
      password: 'wrong-one',
    });
    expectAuthenticationFailed(wrong);
    expectOk(await postForm(ctx.app, `/v1/user/tokens/${first}/revoke`, {}, bearer(second.user.api_token)));
    expect(typed(await next())).toEqual([
      { type: 'session.revoked', data: { user_id: user.id, session_id: first, reason: 'revoked' } },
    ]);
    // An unknown id revokes nothing, and writes nothing.
    const unknown = await postForm(
      ctx.app,
      `/v1/user/tokens/${first}/revoke`,
      {},
      bearer(second.user.api_token),
    );
    expectError(unknown, 404, 'NotFoundHttpException', 'Not Found');
    expectOk(await postForm(ctx.app, '/v1/auth/logout', {}, bearer(second.user.api_token)));
    expect(typed(await next())).toEqual([
      { type: 'session.revoked', data: { user_id: user.id, session_id: made, reason: 'logout' } },
    ]);
  });

  it('a profile update writes user.updated with what changed; a password change revokes the others', async () => {
    const user = await registerUser(ctx.app);
    const other = await signIn(user);
    const [current, second] = await sessionIds(user.id);
    const next = await eventsFrom(handle(), user.id);
    const update = (body: Record<string, string>) =>
      postForm(ctx.app, '/v1/user/update', body, bearer(user.token));
    // Refused: the re-authentication fails, nothing is written.
    expect((await update({ password: 'A-brand-new-passphrase', current_password: 'wrong' })).statusCode).toBe(
      422,
    );
    expect(await next()).toEqual([]);
    const username = `renamed${unique()}`;
    expectOk(await update({ username, bio: '안녕하세요', gender: '0' }));
    expect(typed(await next())).toEqual([
      {
        type: 'user.updated',
        // The gender sent was the one the account had: not a change.
        data: { id: user.id, changed: ['username', 'bio'], values: { username, bio: '안녕하세요' } },
      },
    ]);
    const email = `moved${unique()}@example.com`;
    expectOk(await update({ email, password: 'A-brand-new-passphrase', current_password: user.password }));
    expect(typed(await next())).toEqual([
      { type: 'session.revoked', data: { user_id: user.id, session_id: second, reason: 'password_changed' } },
      { type: 'user.updated', data: { id: user.id, changed: ['email'], values: { email } } },
    ]);
    expect(await sessionIds(user.id)).toEqual([current]);
    expect(other.user.api_token).not.toBe(user.token);
    // The new address verified by its link.
    const token = await latestToken(handle(), email, 'email_verify');
    expectOk(await postForm(ctx.app, '/v1/auth/email/verify', { token }));
    expect(typed(await next())).toEqual([{ type: 'user.email_verified', data: { id: user.id, email } }]);
  });

  it('a new profile picture writes user.updated with its public URLs', async () => {
    const user = await registerUser(ctx.app);
    const next = await eventsFrom(handle(), user.id);
    const { user: updated } = expectOk<{ user: { profile_picture: Record<string, unknown> } }>(
      await updatePicture(ctx.app, user.token, await pngFixture(64, 64)),
    );
    expect(typed(await next())).toEqual([
      {
        type: 'user.updated',
        data: {
          id: user.id,
          changed: ['profile_picture'],
          values: { profile_picture: updated.profile_picture },
        },
      },
    ]);
  });

  it('a consent change writes consent.changed per record; withdrawing what was never agreed writes none', async () => {
    const user = await registerUser(ctx.app);
    const next = await eventsFrom(handle(), user.id);
    const change = (body: Record<string, string>) =>
      postForm(ctx.app, '/v1/user/consents/update', body, bearer(user.token));
    expectOk(await change({ marketing_email: 'false' }));
    expect(await next()).toEqual([]);
    expectOk(await change({ marketing_email: 'true' }));
    expectOk(await change({ marketing_email: 'false' }));
    expect(typed(await next())).toEqual([
      {
        type: 'consent.changed',
        data: { user_id: user.id, key: 'marketing_email', version: 1, agreed: true },
      },
      {
        type: 'consent.changed',
        data: { user_id: user.id, key: 'marketing_email', version: 1, agreed: false },
      },
    ]);
  });

  it('a deletion: scheduled (sessions revoked), cancelled (a new session), then erased by the sweep', async () => {
    const user = await registerUser(ctx.app);
    const [session] = await sessionIds(user.id);
    const next = await eventsFrom(handle(), user.id);
    const remove = () =>
      postForm(ctx.app, '/v1/user/delete', { current_password: user.password }, bearer(user.token));
    const { scheduled_for } = expectOk<{ scheduled_for: string }>(await remove());
    expect(typed(await next())).toEqual([
      { type: 'session.revoked', data: { user_id: user.id, session_id: session, reason: 'deletion' } },
      { type: 'user.deletion_scheduled', data: { id: user.id, scheduled_for } },
    ]);
    const restored = expectOk<{ user: { api_token: string } }>(
      await postForm(ctx.app, '/v1/auth/deletion/cancel', { email: user.email, password: user.password }),
    );
    const [made] = await sessionIds(user.id);
    expect(typed(await next())).toEqual([
      { type: 'session.created', data: { user_id: user.id, session_id: made, method: 'password' } },
      { type: 'user.deletion_cancelled', data: { id: user.id } },
    ]);
    // Scheduled again, and this time the grace period runs out.
    const again = await postForm(
      ctx.app,
      '/v1/user/delete',
      { current_password: user.password },
      bearer(restored.user.api_token),
    );
    expectOk(again);
    await next();
    await sql`UPDATE users SET deletion_due_at = now() - interval '1 second' WHERE id = ${user.id}::uuid`.execute(
      db(),
    );
    await ctx.dueDeletions.eraseDue();
    expect(typed(await next())).toEqual([{ type: 'user.deleted', data: { id: user.id } }]);
  });

  it('a deletion whose mail cannot be written rolls back with its events', async () => {
    const user = await registerUser(ctx.app);
    const next = await eventsFrom(handle(), user.id);
    // The mail is written after the sessions' and the schedule's events, in the same transaction.
    await sql`ALTER TABLE mail_outbox ADD CONSTRAINT test_refuse_mail CHECK (false) NOT VALID`.execute(db());
    try {
      const res = await postForm(
        ctx.app,
        '/v1/user/delete',
        { current_password: user.password },
        bearer(user.token),
      );
      expectError(res, ...COMMIT_FAILED);
    } finally {
      await sql`ALTER TABLE mail_outbox DROP CONSTRAINT test_refuse_mail`.execute(db());
    }
    expect(await next()).toEqual([]);
    expect(await sessionIds(user.id)).toHaveLength(1);
  });
});
