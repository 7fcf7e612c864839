import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IdentityVerifications } from '../../src/account/identity/service.js';
import { unlimited } from '../../src/limits/rate-counter.js';
import { GuardianWaits } from '../../src/modules/guardian/waits-repo.js';
import { IdentityRepo } from '../../src/modules/identity/repo.js';
import { closeTestApp, createTestApp, type TestApp } from '../helpers/app.js';
import { backends } from '../helpers/database.js';
import { registerUser } from '../helpers/factories.js';
import { expectError, expectOk, expectValidationError } from '../helpers/http.js';
import { FIELD, IDENTITY_IN_USE, identityFlows, USED } from '../helpers/identity.js';
import { type FakePortOne, startFakePortOne } from '../helpers/portone.js';
import { eventsOf } from '../helpers/security-events.js';
import { buildTestServices } from '../helpers/services.js';

/**
 * One person, one live account (IDENTITY_ONE_ACCOUNT_PER_PERSON, on by default): a second account of the same
 * person is refused, an erased or released one frees the person, and a race lets exactly one through.
 */
describe.each(backends)('%s: one person, one verified account', (backend) => {
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

  const { start, verify, userGet, verifiedAs } = identityFlows(
    () => ctx.app,
    () => fake,
  );

  it('keeps one person on one live account, whoever asks, and lets the same person verify again', async () => {
    const who = fake.person();
    const first = await verifiedAs(who);
    expectOk(first.res);
    const second = await verifiedAs(who);
    expectError(second.res, ...IDENTITY_IN_USE);
    expect(await userGet(second.user)).toMatchObject({ identity_verified: false });

    // The same person on the same account again is fine; another person on it is not.
    const again = await start(first.user);
    fake.script(again, 'VERIFIED', who);
    expectOk(await verify(first.user, again));
    const stranger = await start(first.user);
    fake.script(stranger, 'VERIFIED', fake.person());
    expectValidationError(await verify(first.user, stranger), {
      [FIELD]: ['This account was verified as another person.'],
    });
  });

  it('frees the person when their account is erased, or when an operator releases it', async () => {
    const services = buildTestServices(ctx);
    const who = fake.person();
    const first = await verifiedAs(who);
    expectOk(first.res);
    await services.eraser.erase({ id: first.user.id, username: first.user.username });
    const second = await verifiedAs(who);
    expectOk(second.res);

    expect(await services.identity.release(second.user.id)).toBe(true);
    expect(await services.identity.release(second.user.id)).toBe(false);
    expect(await userGet(second.user)).toMatchObject({ identity_verified: false });
    expect((await eventsOf(ctx.database.handle, second.user.id)).map((event) => event.type)).toContain(
      'identity_released',
    );
    expectOk((await verifiedAs(who)).res);
  });

  it('lets one of two verifications racing for one id, or for one person, through', async () => {
    const user = await registerUser(ctx.app);
    const id = await start(user);
    fake.script(id, 'VERIFIED', fake.person());
    const twice = await Promise.all([verify(user, id), verify(user, id)]);
    expect(twice.map((res) => res.statusCode).sort()).toEqual([200, 422]);
    expectValidationError(twice.find((res) => res.statusCode === 422) as never, { [FIELD]: USED });

    const who = fake.person();
    const [first, second] = [await registerUser(ctx.app), await registerUser(ctx.app)];
    const ids = [await start(first), await start(second)];
    for (const each of ids) fake.script(each, 'VERIFIED', who);
    const both = await Promise.all([verify(first, ids[0] as string), verify(second, ids[1] as string)]);
    expect(both.map((res) => res.statusCode).sort()).toEqual([200, 409]);
    expectError(both.find((res) => res.statusCode === 409) as never, ...IDENTITY_IN_USE);
  });

  it('lets one person verify several accounts when IDENTITY_ONE_ACCOUNT_PER_PERSON is off', async () => {
    const { identityVerifier: verifier, activity } = buildTestServices(ctx);
    const db = ctx.database.handle.db;
    const portone = { storeId: fake.storeId, channelKey: fake.channelKey };
    const repo = new IdentityRepo(db);
    const loose = new IdentityVerifications({
      db,
      repo,
      guardians: new GuardianWaits(db),
      verifier,
      portone,
      oneAccountPerPerson: false,
      limit: unlimited,
      activity,
    });
    const who = fake.person();
    for (const user of [await registerUser(ctx.app), await registerUser(ctx.app)]) {
      const row = await db
        .selectFrom('users')
        .selectAll()
        .where('id', '=', user.id)
        .executeTakeFirstOrThrow();
      const auth = { user: row, tokenId: '' };
      const { identity_verification_id: id } = await loose.start(auth);
      fake.script(id, 'VERIFIED', who);
      await loose.verify(auth, id, { ip: '127.0.0.1', userAgent: undefined });
      expect(await userGet(user)).toMatchObject({ identity_verified: true });
    }
  });
});
