import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeTestApp, createTestApp, type TestApp } from '../helpers/app.js';
import { backends } from '../helpers/database.js';
import { bearer, type RegisteredUser, registerUser, unique } from '../helpers/factories.js';
import { askGuardian, bornYearsAgo, registerChild } from '../helpers/guardian.js';
import { expectError, expectOk, expectValidationError, postForm } from '../helpers/http.js';
import { FIELD, IMPLAUSIBLE_BIRTH_DATE, identityFlows } from '../helpers/identity.js';
import { latestToken } from '../helpers/mail.js';
import { type FakePerson, type FakePortOne, startFakePortOne } from '../helpers/portone.js';
import { createPost } from '../helpers/posts.js';

const DAY_MS = 86_400_000;
const CONSENT_REQUIRED = [
  403,
  'AccessDeniedHttpException',
  "A legal guardian's consent is required.",
  { status: 'guardian_consent_required' },
] as const;

/**
 * A verified birth date applies the sign-up's age rule again: a person under 14 waits for a guardian's
 * consent as a sign-up under 14 does, from the verification on; one of 14 or over needs none.
 */
describe.each(backends)('%s: the age rule on a verified birth date', (backend) => {
  let fake: FakePortOne;
  const ctx = {} as TestApp;
  beforeAll(async () => {
    fake = await startFakePortOne();
    Object.assign(ctx, await createTestApp(backend, fake.env()));
  });
  afterAll(async () => {
    if (ctx.app) await closeTestApp(ctx);
    await fake?.close();
    expect(ctx.responseMismatches ?? []).toEqual([]);
  });

  const { start, verify, userGet } = identityFlows(
    () => ctx.app,
    () => fake,
  );
  const db = () => ctx.database.handle.db;
  const verifyAs = async (user: RegisteredUser, person: FakePerson) => {
    const id = await start(user);
    fake.script(id, 'VERIFIED', person);
    return expectOk<{ identity: Record<string, unknown> }>(await verify(user, id)).identity;
  };
  /** Moves the account's sign-up, or the start of its wait, `days` into the past. */
  const backdate = async (
    user: RegisteredUser,
    column: 'created_at' | 'guardian_pending_since',
    days: number,
  ) =>
    sql`UPDATE users SET ${sql.ref(column)} = now() - make_interval(days => ${days}) WHERE id = ${user.id}::uuid`.execute(
      db(),
    );

  it('makes an account verified as a child under 14 wait for a guardian, as a sign-up under 14 does', async () => {
    const user = await registerUser(ctx.app, { birth_date: '1990-01-01' });
    await backdate(user, 'created_at', 30);
    expect(await userGet(user)).toMatchObject({ adult: true, guardian_consent: null, restrictions: [] });

    const identity = await verifyAs(user, fake.person({ birthDate: bornYearsAgo(10) }));
    expect(identity).toMatchObject({ birth_date: bornYearsAgo(10), adult: false });
    expect(await userGet(user)).toMatchObject({
      identity_verified: true,
      adult: false,
      guardian_consent: 'pending',
      restrictions: ['guardian_consent_required'],
    });
    expectError(await createPost(ctx.app, user.token, 'hello'), ...CONSENT_REQUIRED);

    // The wait (GUARDIAN_CONSENT_DAYS, 5) starts with the verification, not with the month-old sign-up.
    const sent = expectOk<{ expires_at: string }>(
      await postForm(
        ctx.app,
        '/v1/user/guardian/request',
        { guardian_email: `guardian${unique()}@example.com` },
        bearer(user.token),
      ),
    );
    expect(Date.parse(sent.expires_at)).toBeGreaterThan(Date.now() + 4 * DAY_MS);
    expect((await ctx.guardianDeadline.eraseDue()).map((erased) => erased.id)).not.toContain(user.id);
    await backdate(user, 'guardian_pending_since', 6);
    expect((await ctx.guardianDeadline.eraseDue()).map((erased) => erased.id)).toContain(user.id);
  });

  it('leaves a child consented for as it is, and lifts the wait of a person verified 14 or over', async () => {
    const child = await registerChild(ctx.app);
    const { guardian, token } = await askGuardian(ctx.app, ctx.database.handle, child);
    const started = expectOk<{ identity_verification_id: string }>(
      await postForm(ctx.app, '/v1/guardian/identity/start', { token }),
    ).identity_verification_id;
    fake.script(started, 'VERIFIED', fake.person({ birthDate: bornYearsAgo(40) }));
    expectOk(
      await postForm(ctx.app, '/v1/guardian/consent', {
        token,
        agree: 'true',
        identity_verification_id: started,
      }),
    );
    const withdraw = await latestToken(ctx.database.handle, guardian, 'guardian_consent_granted');

    // Verified as the child the sign-up said: the guardian's consent stands.
    const person = fake.person({ birthDate: bornYearsAgo(11) });
    await verifyAs(child, person);
    expect(await userGet(child)).toMatchObject({ guardian_consent: 'granted', restrictions: [] });

    // Verified as someone of 15: no guardian's consent is needed, so none is kept, nor the guardian's address.
    await verifyAs(child, { ...person, birthDate: bornYearsAgo(15) });
    expect(await userGet(child)).toMatchObject({ adult: false, guardian_consent: null, restrictions: [] });
    const links = await db()
      .selectFrom('guardian_requests')
      .select('id')
      .where('user_id', '=', child.id)
      .execute();
    expect(links).toEqual([]);
    expectValidationError(await postForm(ctx.app, '/v1/guardian/withdraw', { token: withdraw }), {
      token: ['The selected token is invalid.'],
    });
    const row = await db()
      .selectFrom('users')
      .select(['guardian_consent', 'deletion_scheduled_at'])
      .where('id', '=', child.id)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ guardian_consent: null, deletion_scheduled_at: null });
  });

  it('changes nothing when the verification is refused', async () => {
    const user = await registerUser(ctx.app, { birth_date: '1990-01-01' });
    const id = await start(user);
    fake.script(id, 'VERIFIED', fake.person({ birthDate: '2999-01-01' }));
    expectValidationError(await verify(user, id), { [FIELD]: IMPLAUSIBLE_BIRTH_DATE });
    expect(await userGet(user)).toMatchObject({ adult: true, guardian_consent: null, restrictions: [] });
  });
});
