import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { markEmailVerified } from '../helpers/account-rows.js';
import { useTestApp } from '../helpers/app.js';
import { backends } from '../helpers/database.js';
import { bearer, type RegisteredUser, registerUser } from '../helpers/factories.js';
import { expectError, expectOk, expectValidationError, postForm, UNAUTHENTICATED } from '../helpers/http.js';
import { outboxFor, tokenFromText } from '../helpers/mail.js';
import { createdPost, postAction, walkFeed } from '../helpers/posts.js';
import { eventCounts, eventsOf } from '../helpers/security-events.js';

const DAY_MS = 86_400_000;
const INVALID_TOKEN = { token: ['The selected token is invalid.'] };
const NOT_SCHEDULED = { email: ['No deletion of this account is scheduled.'] };
const INVALID_CREDENTIALS = [
  'Unauthorized',
  'The login credentials are invalid.',
  { status: 'authentication_failed' },
] as const;

interface SignedIn {
  user: { id: string; email: string; api_token: string };
}

/** With the default grace period (DELETION_GRACE_DAYS=14): user/delete schedules, cancel takes it back. */
describe.each(backends)('%s: user/delete with a grace period', (backend) => {
  const ctx = useTestApp(backend);
  const db = () => ctx.database.handle.db;
  const deleteAccount = (user: RegisteredUser, headers: Record<string, string> = {}) =>
    postForm(
      ctx.app,
      '/v1/user/delete',
      { current_password: user.password },
      { ...bearer(user.token), ...headers },
    );
  const me = (token: string) =>
    ctx.app.inject({ method: 'GET', url: '/v1/user/get', headers: bearer(token) });
  const login = (email: string, password: string) =>
    postForm(ctx.app, '/v1/auth/login/email', { email, password });
  const cancel = (body: Record<string, string>) => postForm(ctx.app, '/v1/auth/deletion/cancel', body);
  const single = (id: string) => ctx.app.inject({ method: 'GET', url: `/v1/post/single/${id}/raw` });
  const feedIds = async (order: 'new' | 'hot') => walkFeed(ctx.app, { order, limit: 100 });
  const inspirerIds = async () =>
    expectOk<{ inspirers: { id: string }[] }>(
      await ctx.app.inject({ method: 'GET', url: '/v1/promotions/inspirers?limit=100' }),
    ).inspirers.map((inspirer) => inspirer.id);
  /** The link of the newest deletion mail to the user, and the mail. */
  async function deletionMail(email: string) {
    const mails = (await outboxFor(ctx.database.handle, email)).filter(
      (m) => m.kind === 'deletion_scheduled',
    );
    const mail = mails.at(-1);
    if (!mail) throw new Error(`no deletion mail to ${email}`);
    return { mail, count: mails.length, token: tokenFromText(mail.text ?? undefined) };
  }
  async function scheduled(user: RegisteredUser): Promise<string> {
    const data = expectOk<{ deleted: boolean; scheduled_for: string }>(await deleteAccount(user));
    expect(data.deleted).toBe(false);
    return data.scheduled_for;
  }

  it('schedules: tokens die, a mail links back, the names stay taken, posts and profile are hidden', async () => {
    const other = await registerUser(ctx.app);
    const user = await registerUser(ctx.app);
    const secondSession = expectOk<SignedIn>(await login(user.email, user.password)).user.api_token;
    const mine = await createdPost(ctx.app, user.token, 'mine');
    const theirs = await createdPost(ctx.app, other.token, 'theirs');
    expectOk(await postAction(ctx.app, other.token, mine.id, 'like'));
    expectOk(await postAction(ctx.app, user.token, theirs.id, 'like'));
    await db().updateTable('users').set({ is_inspirer: true }).where('id', '=', user.id).execute();
    expect(await inspirerIds()).toContain(user.id);

    const before = Date.now();
    const answer = expectOk<{ deleted: boolean; scheduled_for: string }>(
      await deleteAccount(user, { 'accept-language': 'ko' }),
    );
    expect(answer).toEqual({ deleted: false, scheduled_for: expect.any(String) });
    const due = Date.parse(answer.scheduled_for);
    expect(due - before).toBeGreaterThan(14 * DAY_MS - 60_000);
    expect(due - Date.now()).toBeLessThan(14 * DAY_MS + 60_000);

    // Every session is gone at once; a second delete with one is refused like any dead token.
    for (const token of [user.token, secondSession]) expectError(await me(token), 401, ...UNAUTHENTICATED);
    expectError(await deleteAccount(user), 401, ...UNAUTHENTICATED);
    // The mail, in the request's language, text and HTML, with the cancel link.
    const { mail, count } = await deletionMail(user.email);
    expect(count).toBe(1);
    expect(mail).toMatchObject({ locale: 'ko', subject: '계정 삭제가 예약되었습니다' });
    expect(mail.text).toMatch(/\/cancel-deletion\?token=[A-Za-z0-9_-]{43}/);
    expect(mail.text).toContain('14일');
    expect(mail.html).toContain('계정 유지하기');
    // Nobody may take the names meanwhile.
    for (const [field, value] of [
      ['email', user.email],
      ['username', user.username],
      ['slug', user.slug],
    ] as const) {
      expectValidationError(await postForm(ctx.app, `/v1/validate/${field}`, { [field]: value }), {
        [field]: [`The ${field} has already been taken.`],
      });
    }
    // The posts and the profile cannot be found; others' likes stay, and so does the user's like of theirs.
    for (const order of ['new', 'hot'] as const) {
      const ids = await feedIds(order);
      expect(ids).not.toContain(mine.id);
      expect(ids).toContain(theirs.id);
    }
    expectError(await single(mine.id), 404, 'NotFoundHttpException', 'Not Found');
    expectError(
      await postAction(ctx.app, other.token, mine.id, 'unlike'),
      404,
      'NotFoundHttpException',
      'Not Found',
    );
    expect(expectOk<{ post: { like_count: number } }>(await single(theirs.id)).post.like_count).toBe(1);
    const likes = await db()
      .selectFrom('post_likes')
      .select('user_id')
      .where('post_id', '=', mine.id)
      .execute();
    expect(likes).toEqual([{ user_id: other.id }]);
    expect(await inspirerIds()).not.toContain(user.id);

    // Signing in: the 409 only for the right password, the usual 401 otherwise.
    expectError(
      await login(user.email, user.password),
      409,
      'ConflictHttpException',
      'This account is scheduled for deletion.',
      {
        status: 'deletion_scheduled',
        scheduled_for: answer.scheduled_for,
      },
    );
    expectError(await login(user.email, `${user.password}x`), 401, ...INVALID_CREDENTIALS);
  });

  it('is taken back by the mailed token, once: everything is back and the old sessions stay revoked', async () => {
    const other = await registerUser(ctx.app);
    const user = await registerUser(ctx.app);
    const mine = await createdPost(ctx.app, user.token, 'back soon');
    expectOk(await postAction(ctx.app, other.token, mine.id, 'like'));
    await db().updateTable('users').set({ is_inspirer: true }).where('id', '=', user.id).execute();
    await scheduled(user);
    const { token } = await deletionMail(user.email);

    const restored = expectOk<SignedIn>(await cancel({ token }));
    expect(restored.user).toMatchObject({ id: user.id, email: user.email, api_token: expect.any(String) });
    expectOk(await me(restored.user.api_token));
    expectError(await me(user.token), 401, ...UNAUTHENTICATED);
    expect(await feedIds('new')).toContain(mine.id);
    expect(await feedIds('hot')).toContain(mine.id);
    expect(expectOk<{ post: { like_count: number } }>(await single(mine.id)).post.like_count).toBe(1);
    expect(await inspirerIds()).toContain(user.id);
    expectOk(await login(user.email, user.password));
    const row = await db()
      .selectFrom('users')
      .selectAll()
      .where('id', '=', user.id)
      .executeTakeFirstOrThrow();
    expect(row).toMatchObject({ deletion_scheduled_at: null, deletion_due_at: null });

    // Single-use; and an account not scheduled has nothing to cancel.
    expectValidationError(await cancel({ token }), INVALID_TOKEN);
    expectValidationError(await cancel({ email: user.email, password: user.password }), NOT_SCHEDULED);
    expectValidationError(await cancel({ token: 'x'.repeat(43) }), INVALID_TOKEN);
  });

  it('is taken back by email and password; the mailed link then stops working', async () => {
    const user = await registerUser(ctx.app);
    await scheduled(user);
    const { token } = await deletionMail(user.email);
    expectValidationError(await cancel({}), {
      email: ['The email field is required.'],
      password: ['The password field is required.'],
    });
    expectValidationError(await cancel({ email: user.email }), {
      password: ['The password field is required.'],
    });
    expectError(
      await cancel({ email: user.email, password: `${user.password}x` }),
      401,
      ...INVALID_CREDENTIALS,
    );
    const restored = expectOk<SignedIn>(
      await cancel({ email: user.email.toUpperCase(), password: user.password }),
    );
    expect(restored.user.id).toBe(user.id);
    expectOk(await me(restored.user.api_token));
    expectValidationError(await cancel({ token }), INVALID_TOKEN);
    // Scheduled again later: a new mail, a new link, and only that one works.
    await scheduled({ ...user, token: restored.user.api_token });
    const again = await deletionMail(user.email);
    expect(again.count).toBe(2);
    expectValidationError(await cancel({ token }), INVALID_TOKEN);
    expectOk(await cancel({ token: again.token }));
  });

  it('schedules once when two deletes race; the loser is signed out like any dead session', async () => {
    const user = await registerUser(ctx.app);
    const responses = await Promise.all([deleteAccount(user), deleteAccount(user)]);
    const statuses = responses.map((res) => res.statusCode).sort();
    expect(statuses).toEqual([200, 401]);
    expect((await deletionMail(user.email)).count).toBe(1);
  });

  it('logs the request once with its alert mail, and the cancel once; a refused cancel logs none', async () => {
    const user = await registerUser(ctx.app);
    // Alerts go only to a verified address.
    await markEmailVerified(ctx.database.handle.db, user.id);
    const raced = await Promise.all([deleteAccount(user), deleteAccount(user)]);
    expect(raced.map((res) => res.statusCode).sort()).toEqual([200, 401]);
    expect(await eventCounts(ctx.database.handle, user.id)).toEqual({
      account_created: 1,
      deletion_requested: 1,
    });
    const alerts = (await outboxFor(ctx.database.handle, user.email)).filter(
      (mail) => mail.kind === 'alert_deletion_requested',
    );
    expect(alerts).toHaveLength(1);
    const { token } = await deletionMail(user.email);
    expectValidationError(await cancel({ token: 'x'.repeat(43) }), INVALID_TOKEN);
    expectError(
      await cancel({ email: user.email, password: `${user.password}x` }),
      401,
      ...INVALID_CREDENTIALS,
    );
    expect(await eventCounts(ctx.database.handle, user.id)).not.toHaveProperty('deletion_cancelled');
    expectOk(await cancel({ token }));
    expectValidationError(await cancel({ token }), INVALID_TOKEN);
    const events = await eventsOf(ctx.database.handle, user.id);
    expect(events.filter((event) => event.type === 'deletion_cancelled')).toHaveLength(1);
    expect(events.find((event) => event.type === 'deletion_requested')?.details).toMatchObject({
      by: 'user',
    });
  });

  it('sends no password-reset mail to a scheduled account, and answers the same', async () => {
    const user = await registerUser(ctx.app);
    await scheduled(user);
    expect(expectOk(await postForm(ctx.app, '/v1/auth/password/forgot', { email: user.email }))).toEqual({
      status: 'sent',
    });
    await ctx.mailer.idle();
    const kinds = (await outboxFor(ctx.database.handle, user.email)).map((row) => row.kind);
    expect(kinds).not.toContain('password_reset');
    const { rows } = await sql<{ n: number }>`
      SELECT count(*)::int AS n FROM api_tokens WHERE user_id = ${user.id}::uuid`.execute(db());
    expect(rows[0]?.n).toBe(0);
  });
});
