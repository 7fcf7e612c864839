import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { koreanDate } from '../../src/lib/age.js';
import { closeTestApp, createTestApp, type TestApp } from '../helpers/app.js';
import { download, readyExport } from '../helpers/data-export.js';
import { backends } from '../helpers/database.js';
import { bearer, registerUser } from '../helpers/factories.js';
import { expectError, expectOk, expectValidationError, postForm } from '../helpers/http.js';
import {
  EXPIRED,
  FIELD,
  FUTURE_TIME,
  IMPLAUSIBLE_BIRTH_DATE,
  INVALID,
  identityFlows,
  NOT_VERIFIED,
  SERVICE_UNAVAILABLE,
  USED,
  yearsAgo,
} from '../helpers/identity.js';
import { logSink } from '../helpers/logs.js';
import { type FakePortOne, startFakePortOne } from '../helpers/portone.js';
import { eventsOf } from '../helpers/security-events.js';
import { readZip } from '../helpers/zip.js';

describe.each(backends)('%s: identity verification through PortOne', (backend) => {
  let fake: FakePortOne;
  const ctx = {} as TestApp;
  const logs = logSink();

  beforeAll(async () => {
    fake = await startFakePortOne();
    // A short PortOne timeout, so the silent-PortOne test waits briefly (nothing asserts on time).
    Object.assign(
      ctx,
      await createTestApp(backend, { ...fake.env(500), LOG_LEVEL: 'trace' }, { logStream: logs.stream }),
    );
  });
  afterAll(async () => {
    if (ctx.app) await closeTestApp(ctx);
    await fake?.close();
    expect(ctx.responseMismatches ?? []).toEqual([]);
  });

  const { answers, recorded, start, verify, userGet, verifiedAs } = identityFlows(
    () => ctx.app,
    () => fake,
  );

  it('keeps a verification that counts: the birth date, foreigner, a masked name and a hash of the CI', async () => {
    const user = await registerUser(ctx.app);
    expect(await userGet(user)).toMatchObject({ identity_verified: false, adult: null });
    const started = expectOk<Record<string, string>>(
      recorded(await postForm(ctx.app, '/v1/user/identity/start', {}, bearer(user.token))),
    );
    expect(started).toEqual({
      identity_verification_id: expect.stringMatching(/^identity-verification-[0-9a-f-]{36}$/),
      store_id: fake.storeId,
      channel_key: fake.channelKey,
    });
    const id = started.identity_verification_id as string;
    const who = fake.person({ birthDate: '1998-04-17' });
    fake.script(id, 'VERIFIED', who);

    const data = expectOk(await verify(user, id));
    expect(data).toEqual({
      identity: { verified: true, verified_at: expect.any(String), birth_date: '1998-04-17', adult: true },
    });
    expect(fake.requests.at(-1)).toEqual({
      path: `/identity-verifications/${id}?storeId=${fake.storeId}`,
      authorization: `PortOne ${fake.secret}`,
    });
    expect(await userGet(user)).toMatchObject({ identity_verified: true, adult: true });

    const db = ctx.database.handle.db;
    const stored = await db
      .selectFrom('identity_verifications')
      .selectAll()
      .where('user_id', '=', user.id)
      .executeTakeFirstOrThrow();
    expect(stored).toMatchObject({ birth_date: '1998-04-17', foreigner: false, masked_name: '김*지' });
    expect(Buffer.from(stored.ci_hash)).toHaveLength(32);
    expect(Buffer.from(stored.ci_binding ?? [])).toEqual(Buffer.from(stored.ci_hash));
    expect(Buffer.from(stored.ci_hash).toString('base64')).not.toBe(who.ci);
    const row = await db
      .selectFrom('users')
      .select(['birth_date', 'identity_verified_at'])
      .where('id', '=', user.id)
      .executeTakeFirstOrThrow();
    expect(row.birth_date).toBe('1998-04-17');
    expect(row.identity_verified_at).not.toBeNull();

    expect((await eventsOf(ctx.database.handle, user.id)).map((event) => event.type)).toContain(
      'identity_verified',
    );
    const event = await db
      .selectFrom('account_events')
      .select(['type', 'data'])
      .where('user_id', '=', user.id)
      .where('type', '=', 'user.identity_verified')
      .executeTakeFirstOrThrow();
    expect(event.data).toEqual({
      id: user.id,
      verified_at: data.identity && (data.identity as { verified_at: string }).verified_at,
      adult: true,
    });
  });

  it('says a minor is no adult, and a verified birth date replaces a declared one', async () => {
    const user = await registerUser(ctx.app);
    await sql`UPDATE users SET birth_date = '1990-01-01' WHERE id = ${user.id}`.execute(
      ctx.database.handle.db,
    );
    expect(await userGet(user)).toMatchObject({ identity_verified: false, adult: true });
    const id = await start(user);
    fake.script(id, 'VERIFIED', fake.person({ birthDate: yearsAgo(17), isForeigner: true, name: '이서' }));
    expect(expectOk(await verify(user, id))).toMatchObject({
      identity: { birth_date: yearsAgo(17), adult: false },
    });
    expect(await userGet(user)).toMatchObject({ identity_verified: true, adult: false });
    const stored = await ctx.database.handle.db
      .selectFrom('identity_verifications')
      .select(['foreigner', 'masked_name'])
      .where('user_id', '=', user.id)
      .executeTakeFirstOrThrow();
    expect(stored).toEqual({ foreigner: true, masked_name: '이*' });
  });

  it('refuses a failed or unfinished verification, and takes the id once PortOne says VERIFIED', async () => {
    const user = await registerUser(ctx.app);
    const id = await start(user);
    const who = fake.person();
    fake.script(id, 'FAILED', who);
    expectValidationError(await verify(user, id), { [FIELD]: NOT_VERIFIED });
    fake.script(id, 'READY', who);
    expectValidationError(await verify(user, id), { [FIELD]: NOT_VERIFIED });
    fake.script(id, 'VERIFIED', who);
    expectOk(await verify(user, id));
    expect(await userGet(user)).toMatchObject({ identity_verified: true });
  });

  it('refuses a replayed id, another user’s id, an unknown id and another store’s verification', async () => {
    const { user, id } = await verifiedAs(fake.person());
    expectValidationError(await verify(user, id), { [FIELD]: USED });

    const other = await registerUser(ctx.app);
    expectValidationError(await verify(other, id), { [FIELD]: INVALID });
    expectValidationError(await verify(other, 'identity-verification-never-issued'), { [FIELD]: INVALID });

    const foreign = await start(other);
    fake.script(foreign, 'VERIFIED', fake.person(), { storeId: 'store-of-another-app' });
    expectValidationError(await verify(other, foreign), { [FIELD]: INVALID });
    expect(await userGet(other)).toMatchObject({ identity_verified: false });
  });

  it('refuses an id issued more than 30 minutes ago, and a verification made more than 30 minutes ago', async () => {
    const user = await registerUser(ctx.app);
    const old = await start(user);
    fake.script(old, 'VERIFIED', fake.person());
    await sql`UPDATE identity_verification_requests SET created_at = now() - interval '31 minutes' WHERE id = ${old}`.execute(
      ctx.database.handle.db,
    );
    expectValidationError(await verify(user, old), { [FIELD]: EXPIRED });

    const id = await start(user);
    fake.script(id, 'VERIFIED', fake.person(), { verifiedAt: new Date(Date.now() - 31 * 60_000) });
    expectValidationError(await verify(user, id), { [FIELD]: EXPIRED });
    // The start after it forgot the id past its window.
    expectValidationError(await verify(user, old), { [FIELD]: INVALID });
    expect(await userGet(user)).toMatchObject({ identity_verified: false });
  });

  it('refuses what no true verification answers, stores nothing, and tolerates a clock a little ahead', async () => {
    const user = await registerUser(ctx.app);
    const today = koreanDate(new Date());
    const tomorrow = koreanDate(new Date(Date.now() + 86_400_000));
    const refusals: Array<[Parameters<FakePortOne['person']>[0], { verifiedAt?: Date }, string[]]> = [
      [{}, { verifiedAt: new Date(Date.now() + 6 * 60_000) }, FUTURE_TIME],
      [{}, { verifiedAt: new Date(Date.now() + 365 * 86_400_000) }, FUTURE_TIME],
      [{ birthDate: tomorrow }, {}, IMPLAUSIBLE_BIRTH_DATE],
      [{ birthDate: '2999-01-01' }, {}, IMPLAUSIBLE_BIRTH_DATE],
      [{ birthDate: '1899-12-31' }, {}, IMPLAUSIBLE_BIRTH_DATE],
      [{ birthDate: '2015-02-30' }, {}, IMPLAUSIBLE_BIRTH_DATE],
    ];
    for (const [person, options, messages] of refusals) {
      const id = await start(user);
      fake.script(id, 'VERIFIED', fake.person(person), options);
      expectValidationError(await verify(user, id), { [FIELD]: messages });
    }
    expect(await userGet(user)).toMatchObject({ identity_verified: false, adult: null });
    const stored = await ctx.database.handle.db
      .selectFrom('identity_verifications')
      .select('user_id')
      .where('user_id', '=', user.id)
      .execute();
    expect(stored).toEqual([]);

    // PortOne's clock two minutes ahead of ours, and a person born today: a verification like any other.
    const id = await start(user);
    const verifiedAt = new Date(Date.now() + 2 * 60_000);
    fake.script(id, 'VERIFIED', fake.person({ birthDate: today }), { verifiedAt });
    expect(expectOk(await verify(user, id))).toMatchObject({ identity: { birth_date: today, adult: false } });
  });

  it('answers 503 when PortOne fails or stays silent past PORTONE_TIMEOUT_MS, and the id stays usable', async () => {
    const user = await registerUser(ctx.app);
    const id = await start(user);
    fake.script(id, 'VERIFIED', fake.person());
    fake.failWith('http-500');
    expectError(await verify(user, id), ...SERVICE_UNAVAILABLE);
    fake.failWith('hang');
    expectError(await verify(user, id), ...SERVICE_UNAVAILABLE);
    fake.failWith(undefined);
    expectOk(await verify(user, id));
  });

  it('shows the verification in the data export, and no CI, phone number or full name anywhere', async () => {
    const user = await registerUser(ctx.app);
    const id = await start(user);
    const who = fake.person({ name: '박지민', birthDate: '1990-03-05' });
    fake.script(id, 'VERIFIED', who);
    expectOk(await verify(user, id));
    const ready = await readyExport(ctx, user);
    const zip = await readZip((await download(ctx, ready.download_url ?? '')).rawPayload);
    const accountJson = (await zip.read('account.json')).toString('utf8');
    expect(JSON.parse(accountJson).identity_verification).toEqual({
      verified: true,
      verified_at: expect.any(String),
      birth_date: '1990-03-05',
      foreigner: false,
      masked_name: '박*민',
      one_account_per_person: true,
    });
    answers.push(accountJson);

    const events = await ctx.database.handle.db.selectFrom('account_events').select('data').execute();
    const seen = [...answers, ...logs.lines, JSON.stringify(events)].join('\n');
    expect(seen).toContain('identity_verified');
    // Every person the fake handed out: no answer, log line or event may hold their CI or phone number.
    for (const someone of fake.people) {
      expect(seen).not.toContain(someone.ci);
      expect(seen).not.toContain(someone.phoneNumber);
    }
    expect(seen).not.toContain('박지민');
  });
});
