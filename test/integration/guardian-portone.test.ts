import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeTestApp, createTestApp, type TestApp } from '../helpers/app.js';
import { backends } from '../helpers/database.js';
import { askGuardian, bornYearsAgo, registerChild } from '../helpers/guardian.js';
import { expectOk, expectValidationError, postForm } from '../helpers/http.js';
import { type FakePortOne, startFakePortOne } from '../helpers/portone.js';

/**
 * A guardian verified through PortOne (the fake on 127.0.0.1 speaking its API): the id the guardian's page
 * hands PortOne's window is bound to that guardian's link, and only PortOne's VERIFIED answer for an adult
 * makes the consent count.
 */
describe.each(backends)('%s: a guardian verified through PortOne', (backend) => {
  let fake: FakePortOne;
  let ctx: TestApp;
  beforeAll(async () => {
    fake = await startFakePortOne();
    ctx = await createTestApp(backend, fake.env());
  });
  afterAll(async () => {
    if (ctx) await closeTestApp(ctx);
    await fake?.close();
    expect(ctx?.responseMismatches ?? []).toEqual([]);
  });

  const start = async (token: string) =>
    expectOk<{ identity_verification_id: string; store_id: string; channel_key: string }>(
      await postForm(ctx.app, '/v1/guardian/identity/start', { token }),
    );
  const consent = (token: string, id: string) =>
    postForm(ctx.app, '/v1/guardian/consent', { token, agree: 'true', identity_verification_id: id });
  const invalid = { identity_verification_id: ['The selected identity verification id is invalid.'] };

  it('counts an adult verified for this link, and nothing else', async () => {
    const child = await registerChild(ctx.app);
    const { token } = await askGuardian(ctx.app, ctx.database.handle, child);
    const started = await start(token);
    expect(started).toMatchObject({ store_id: fake.storeId, channel_key: fake.channelKey });

    // An id nobody started, or one started for another child's link: refused before PortOne is asked.
    const asked = fake.requests.length;
    expectValidationError(await consent(token, 'gv-AAAAAAAAAAAAAAAA-AAAAAAAAAAAAAAAAAAAAAA'), invalid);
    const other = await askGuardian(ctx.app, ctx.database.handle, await registerChild(ctx.app));
    const elsewhere = (await start(other.token)).identity_verification_id;
    fake.script(elsewhere, 'VERIFIED', fake.person({ birthDate: bornYearsAgo(40) }));
    expectValidationError(await consent(token, elsewhere), invalid);
    expect(fake.requests.length).toBe(asked);

    // PortOne's own answers: not verified, a minor.
    const id = started.identity_verification_id;
    fake.script(id, 'FAILED', fake.person({ birthDate: bornYearsAgo(40) }));
    expectValidationError(await consent(token, id), {
      identity_verification_id: ['The identity verification did not succeed.'],
    });
    fake.script(id, 'VERIFIED', fake.person({ birthDate: bornYearsAgo(17) }));
    expectValidationError(await consent(token, id), {
      identity_verification_id: ['The identity verification id does not show an adult (19 or over).'],
    });

    const parent = fake.person({ birthDate: bornYearsAgo(40) });
    fake.script(id, 'VERIFIED', parent);
    expectOk(await consent(token, id));
    expect(fake.requests.at(-1)?.authorization).toBe(`PortOne ${fake.secret}`);
    const record = await ctx.database.handle.db
      .selectFrom('guardian_consents')
      .select(['method', 'agreed', 'guardian_ci_hash'])
      .where('user_id', '=', child.id)
      .executeTakeFirstOrThrow();
    expect(record).toMatchObject({ method: 'identity_verification', agreed: true });
    const hash = Buffer.from(record.guardian_ci_hash ?? []);
    expect(hash.length).toBe(32);
    expect(hash.toString('latin1')).not.toContain(parent.ci);
    const user = await ctx.database.handle.db
      .selectFrom('users')
      .select('guardian_consent')
      .where('id', '=', child.id)
      .executeTakeFirstOrThrow();
    expect(user.guardian_consent).toBe('granted');
  });
});
