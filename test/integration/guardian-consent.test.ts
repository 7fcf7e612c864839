import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { rowsOf } from '../helpers/account-rows.js';
import { useTestApp } from '../helpers/app.js';
import { expectTooManyRequests } from '../helpers/client-requests.js';
import { backends } from '../helpers/database.js';
import { bearer, registerUser, unique } from '../helpers/factories.js';
import { askGuardian, bornYearsAgo, registerChild } from '../helpers/guardian.js';
import { expectError, expectOk, expectValidationError, postForm } from '../helpers/http.js';
import { latestToken, outboxFor } from '../helpers/mail.js';
import { createdPost, createPost } from '../helpers/posts.js';

const CONSENT_REQUIRED = [
  'AccessDeniedHttpException',
  "A legal guardian's consent is required.",
  { status: 'guardian_consent_required' },
] as const;

/**
 * A child under 14 at sign-up waits for a legal guardian: the request mailed to the guardian, the page's
 * reading of the link, the consent that lifts the restrictions, the refusal and the deadline that erase the
 * child with the guardian's address, and the withdrawal that schedules the deletion. AGE_GATE is off here
 * (the default): a birth date is optional, and acts when given.
 */
describe.each(backends)('%s: a guardian’s consent for a child under 14', (backend) => {
  const ctx = useTestApp(backend);
  const db = () => ctx.database.handle.db;
  const userGet = async (token: string) =>
    expectOk<{ user: Record<string, unknown> }>(
      await ctx.app.inject({ url: '/v1/user/get', headers: bearer(token) }),
    ).user;

  it('leaves a sign-up without a birth date, or of someone 14 or over, as it was', async () => {
    for (const user of [
      await registerUser(ctx.app),
      await registerUser(ctx.app, { birth_date: bornYearsAgo(20) }),
    ]) {
      expect(user.user).toMatchObject({ guardian_consent: null, restrictions: [] });
      expect(await userGet(user.token)).toMatchObject({ guardian_consent: null, restrictions: [] });
      expectOk(await createPost(ctx.app, user.token, 'hello'));
    }
    const adult = await registerUser(ctx.app, { birth_date: bornYearsAgo(20) });
    expectValidationError(
      await postForm(
        ctx.app,
        '/v1/user/guardian/request',
        { guardian_email: 'mum@example.com' },
        bearer(adult.token),
      ),
      { guardian_email: ["This account needs no guardian's consent."] },
    );
  });

  it('makes a child pending: reading works, writing is refused, asking a guardian mails a link', async () => {
    const child = await registerChild(ctx.app);
    expect(child.user).toMatchObject({
      guardian_consent: 'pending',
      restrictions: ['guardian_consent_required'],
    });
    expect(await userGet(child.token)).toMatchObject({ guardian_consent: 'pending' });
    expectError(await createPost(ctx.app, child.token, 'hi'), 403, ...CONSENT_REQUIRED);
    expectOk(await ctx.app.inject({ url: '/v1/post/raw/feed', headers: bearer(child.token) }));
    expectValidationError(
      await postForm(
        ctx.app,
        '/v1/user/guardian/request',
        { guardian_email: child.email },
        bearer(child.token),
      ),
      { guardian_email: ["The guardian email must be the guardian's address, not the account's own."] },
    );
    const { guardian, token } = await askGuardian(ctx.app, ctx.database.handle, child);
    const [mail] = await outboxFor(ctx.database.handle, guardian);
    expect(mail?.subject).toBe('Your child asks for your consent');
    expect(mail?.text).toContain(child.username);
    const view = expectOk(await ctx.app.inject({ url: `/v1/guardian/consent?token=${token}` }));
    expect(view).toMatchObject({
      purpose: 'consent',
      child: { username: child.username },
      method: 'mailed_link',
    });
    // Without identity verification configured, starting one says so.
    expectError(
      await postForm(ctx.app, '/v1/guardian/identity/start', { token }),
      503,
      'ServiceUnavailableHttpException',
      'Identity verification not configured.',
      {
        status: 'identity_verification_not_configured',
        variables: ['PORTONE_API_SECRET', 'PORTONE_STORE_ID', 'PORTONE_CHANNEL_KEY'],
      },
    );
  });

  it('sends at most 3 requests an hour per child; a new one replaces the link before', async () => {
    const child = await registerChild(ctx.app);
    const first = await askGuardian(ctx.app, ctx.database.handle, child);
    await askGuardian(ctx.app, ctx.database.handle, child);
    await askGuardian(ctx.app, ctx.database.handle, child);
    const res = await postForm(
      ctx.app,
      '/v1/user/guardian/request',
      { guardian_email: `late${unique()}@example.com` },
      bearer(child.token),
    );
    expectTooManyRequests(res, 60 * 60);
    expectValidationError(
      await postForm(ctx.app, '/v1/guardian/consent', { token: first.token, agree: 'true' }),
      {
        token: ['The selected token is invalid.'],
      },
    );
  });

  it('lets writing work once a guardian consents, records it, and mails a link to withdraw', async () => {
    const child = await registerChild(ctx.app);
    const { guardian, token } = await askGuardian(ctx.app, ctx.database.handle, child);
    expect(expectOk(await postForm(ctx.app, '/v1/guardian/consent', { token, agree: 'true' }))).toEqual({
      guardian_consent: 'granted',
    });
    expect(await userGet(child.token)).toMatchObject({ guardian_consent: 'granted', restrictions: [] });
    await createdPost(ctx.app, child.token, 'my first post');
    const records = await db()
      .selectFrom('guardian_consents')
      .selectAll()
      .where('user_id', '=', child.id)
      .execute();
    expect(records).toMatchObject([
      { method: 'mailed_link', agreed: true, guardian_ci_hash: null, withdrawn_at: null },
    ]);
    expect(records[0]?.documents).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ key: expect.any(String), version: expect.any(Number) }),
      ]),
    );
    // Single use.
    expectValidationError(await postForm(ctx.app, '/v1/guardian/consent', { token, agree: 'false' }), {
      token: ['The selected token is invalid.'],
    });

    const withdraw = await latestToken(ctx.database.handle, guardian, 'guardian_consent_granted');
    const view = expectOk(await ctx.app.inject({ url: `/v1/guardian/consent?token=${withdraw}` }));
    expect(view).toMatchObject({ purpose: 'withdraw' });
    // A withdraw link does not answer a consent.
    expectValidationError(
      await postForm(ctx.app, '/v1/guardian/consent', { token: withdraw, agree: 'true' }),
      {
        token: ['The selected token is invalid.'],
      },
    );
    const done = expectOk<{ deletion_due_at: string }>(
      await postForm(ctx.app, '/v1/guardian/withdraw', { token: withdraw }),
    );
    expect(Date.parse(done.deletion_due_at)).toBeGreaterThan(Date.now());
    const row = await db()
      .selectFrom('users')
      .select(['guardian_consent', 'deletion_scheduled_at'])
      .where('id', '=', child.id)
      .executeTakeFirstOrThrow();
    expect(row.guardian_consent).toBe('pending');
    expect(row.deletion_scheduled_at).not.toBeNull();
    // Scheduling signed the child out everywhere.
    expect((await ctx.app.inject({ url: '/v1/user/get', headers: bearer(child.token) })).statusCode).toBe(
      401,
    );
    const events = await db()
      .selectFrom('security_events')
      .select('type')
      .where('user_id', '=', child.id)
      .execute();
    expect(events.map((event) => event.type)).toEqual(
      expect.arrayContaining(['guardian_requested', 'guardian_consented', 'guardian_withdrawn']),
    );
  });

  it('erases the child and the guardian’s address when the guardian refuses', async () => {
    const child = await registerChild(ctx.app);
    const { guardian, token } = await askGuardian(ctx.app, ctx.database.handle, child);
    expect(expectOk(await postForm(ctx.app, '/v1/guardian/consent', { token, agree: 'false' }))).toEqual({
      guardian_consent: 'refused',
    });
    expect(Object.values(await rowsOf(db(), child.id)).every((count) => count === 0)).toBe(true);
    const mails = await outboxFor(ctx.database.handle, guardian);
    expect(mails).toEqual([]);
  });

  it('lets one answer win of many racing on one link, and a consent and the deadline never both', async () => {
    const child = await registerChild(ctx.app);
    const { token } = await askGuardian(ctx.app, ctx.database.handle, child);
    const answers = await Promise.all(
      [true, false, true, false, true].map((agree) =>
        postForm(ctx.app, '/v1/guardian/consent', { token, agree }),
      ),
    );
    expect(answers.filter((res) => res.statusCode === 200)).toHaveLength(1);
    expect(answers.filter((res) => res.statusCode === 422)).toHaveLength(4);

    const late = await registerChild(ctx.app);
    const link = await askGuardian(ctx.app, ctx.database.handle, late);
    await sql`UPDATE users SET created_at = now() - interval '5 days 1 second' WHERE id = ${late.id}::uuid`.execute(
      db(),
    );
    const [consent, erased] = await Promise.all([
      postForm(ctx.app, '/v1/guardian/consent', { token: link.token, agree: 'true' }),
      ctx.guardianDeadline.eraseDue(),
    ]);
    const gone = (await rowsOf(db(), late.id)).users === 0;
    // Either the consent came first (the account stays, granted) or the sweep did (the link is dead).
    expect(gone).toBe(consent.statusCode === 422);
    expect(erased.some((user) => user.id === late.id)).toBe(gone);
  });

  it('erases a child whose guardian has not consented by the deadline, and no one else', async () => {
    const late = await registerChild(ctx.app);
    await askGuardian(ctx.app, ctx.database.handle, late);
    const inTime = await registerChild(ctx.app);
    const consented = await registerChild(ctx.app);
    const { token } = await askGuardian(ctx.app, ctx.database.handle, consented);
    expectOk(await postForm(ctx.app, '/v1/guardian/consent', { token, agree: 'true' }));
    // GUARDIAN_CONSENT_DAYS (5) and a second have passed since these sign-ups.
    for (const id of [late.id, consented.id]) {
      await sql`UPDATE users SET created_at = now() - interval '5 days 1 second' WHERE id = ${id}::uuid`.execute(
        db(),
      );
    }
    const erased = await ctx.guardianDeadline.eraseDue();
    expect(erased.map((user) => user.id)).toEqual([late.id]);
    expect((await rowsOf(db(), late.id)).users).toBe(0);
    expect((await rowsOf(db(), late.id)).guardian_requests).toBe(0);
    expect((await rowsOf(db(), inTime.id)).users).toBe(1);
    expect((await rowsOf(db(), consented.id)).users).toBe(1);
  });
});

describe.each(backends)('%s: AGE_GATE=birth_date', (backend) => {
  const ctx = useTestApp(backend, { AGE_GATE: 'birth_date' });

  it('requires a real birth date at sign-up', async () => {
    const register = (birth_date?: string) =>
      postForm(ctx.app, '/v1/auth/register', {
        type: 'email',
        email: `gate${unique()}@example.com`,
        username: `gate${unique()}`,
        gender: '1',
        user_agreement: 'on',
        password: `Quiet-Harbour-${unique()}`,
        birth_date,
      });
    expectValidationError(await register(), { birth_date: ['The birth date field is required.'] });
    for (const bad of ['2012-02-30', '12/01/2012', '2012-1-1']) {
      expectValidationError(await register(bad), { birth_date: ['The birth date is not a valid date.'] });
    }
    expectValidationError(await register('2999-01-01'), {
      birth_date: ['The birth date must be a date before or equal to today.'],
    });
    expectValidationError(await register('1899-12-31'), {
      birth_date: ['The birth date must be a date after or equal to 1900-01-01.'],
    });
    const adult = expectOk<{ user: Record<string, unknown> }>(await register(bornYearsAgo(30)));
    expect(adult.user).toMatchObject({ guardian_consent: null, restrictions: [] });
  });
});
