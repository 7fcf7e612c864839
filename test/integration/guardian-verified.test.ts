import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeTestApp, createTestApp, type TestApp } from '../helpers/app.js';
import { download, readyExport } from '../helpers/data-export.js';
import { backends } from '../helpers/database.js';
import { askGuardian, bornYearsAgo, registerChild } from '../helpers/guardian.js';
import { InMemoryGuardianIdentity } from '../helpers/guardian-identity.js';
import { expectOk, expectValidationError, postForm } from '../helpers/http.js';
import { latestToken } from '../helpers/mail.js';
import { readZip } from '../helpers/zip.js';

/**
 * Where the deployment verifies guardians, the consent takes a verification bound to the link that shows
 * an adult; the record keeps the keyed hash of the guardian's CI, never the CI.
 */
describe.each(backends)('%s: a verified guardian’s consent', (backend) => {
  const identity = new InMemoryGuardianIdentity();
  let ctx: TestApp;
  beforeAll(async () => {
    ctx = await createTestApp(backend, {}, { guardianIdentity: identity });
  });
  afterAll(async () => {
    if (ctx) await closeTestApp(ctx);
    expect(ctx?.responseMismatches ?? []).toEqual([]);
  });

  const started = async (token: string) =>
    expectOk<{ identity_verification_id: string }>(
      await postForm(ctx.app, '/v1/guardian/identity/start', { token }),
    ).identity_verification_id;

  it('asks for an adult’s verification bound to the link, and records its CI hash', async () => {
    const child = await registerChild(ctx.app);
    const { token } = await askGuardian(ctx.app, ctx.database.handle, child);
    expect(expectOk(await ctx.app.inject({ url: `/v1/guardian/consent?token=${token}` }))).toMatchObject({
      method: 'identity_verification',
    });
    expectValidationError(await postForm(ctx.app, '/v1/guardian/consent', { token, agree: 'true' }), {
      identity_verification_id: ['The identity verification id field is required.'],
    });
    // A minor cannot be the guardian.
    const minor = await started(token);
    identity.complete(minor, 'CI-OF-A-MINOR', bornYearsAgo(17));
    expectValidationError(
      await postForm(ctx.app, '/v1/guardian/consent', {
        token,
        agree: 'true',
        identity_verification_id: minor,
      }),
      { identity_verification_id: ['The identity verification id does not show an adult (19 or over).'] },
    );
    // A verification started for another child's link proves nothing here.
    const other = await askGuardian(ctx.app, ctx.database.handle, await registerChild(ctx.app));
    const elsewhere = await started(other.token);
    identity.complete(elsewhere, 'CI-OF-A-PARENT', bornYearsAgo(40));
    expectValidationError(
      await postForm(ctx.app, '/v1/guardian/consent', {
        token,
        agree: 'true',
        identity_verification_id: elsewhere,
      }),
      { identity_verification_id: ['The selected identity verification id is invalid.'] },
    );
    const adult = await started(token);
    identity.complete(adult, 'CI-OF-A-PARENT', bornYearsAgo(40));
    expectOk(
      await postForm(ctx.app, '/v1/guardian/consent', {
        token,
        agree: 'true',
        identity_verification_id: adult,
      }),
    );
    const [record] = await ctx.database.handle.db
      .selectFrom('guardian_consents')
      .selectAll()
      .where('user_id', '=', child.id)
      .execute();
    expect(record).toMatchObject({ method: 'identity_verification', agreed: true });
    expect(Buffer.from(record?.guardian_ci_hash ?? []).length).toBe(32);
    const ciHash = Buffer.from(record?.guardian_ci_hash ?? []);
    expect(ciHash.toString('utf8')).not.toContain('CI-OF-A-PARENT');

    // The child's data export lists the answer, never the CI or its hash.
    const ready = await readyExport(ctx, child);
    const zip = await readZip((await download(ctx, ready.download_url ?? '')).rawPayload);
    const account = JSON.parse((await zip.read('account.json')).toString('utf8'));
    expect(account.guardian_consent).toEqual({
      state: 'granted',
      birth_date: bornYearsAgo(10),
      records: [
        {
          method: 'identity_verification',
          agreed: true,
          documents: expect.arrayContaining([expect.objectContaining({ key: expect.any(String) })]),
          answered_at: expect.any(String),
          withdrawn_at: null,
        },
      ],
    });
    const whole = JSON.stringify(account);
    for (const secret of ['CI-OF-A-PARENT', ciHash.toString('hex'), ciHash.toString('base64')]) {
      expect(whole).not.toContain(secret);
    }
  });

  it('lets only the guardian who consented withdraw, verified again; the link alone changes nothing', async () => {
    const child = await registerChild(ctx.app);
    const { guardian, token } = await askGuardian(ctx.app, ctx.database.handle, child);
    const consent = await started(token);
    identity.complete(consent, 'CI-OF-THE-GUARDIAN', bornYearsAgo(40));
    expectOk(
      await postForm(ctx.app, '/v1/guardian/consent', {
        token,
        agree: 'true',
        identity_verification_id: consent,
      }),
    );
    const link = await latestToken(ctx.database.handle, guardian, 'guardian_consent_granted');
    expect(expectOk(await ctx.app.inject({ url: `/v1/guardian/consent?token=${link}` }))).toMatchObject({
      purpose: 'withdraw',
      method: 'identity_verification',
    });
    const withdraw = (id?: string) =>
      postForm(ctx.app, '/v1/guardian/withdraw', { token: link, identity_verification_id: id });
    const unchanged = async () => {
      const row = await ctx.database.handle.db
        .selectFrom('users')
        .select(['guardian_consent', 'deletion_scheduled_at'])
        .where('id', '=', child.id)
        .executeTakeFirstOrThrow();
      expect(row).toEqual({ guardian_consent: 'granted', deletion_scheduled_at: null });
    };

    // The mailed link alone, another adult, or a verification started for another link: refused.
    expectValidationError(await withdraw(), {
      identity_verification_id: ['The identity verification id field is required.'],
    });
    const stranger = await started(link);
    identity.complete(stranger, 'CI-OF-SOMEONE-ELSE', bornYearsAgo(35));
    expectValidationError(await withdraw(stranger), {
      identity_verification_id: ['The identity verification id does not show the guardian who consented.'],
    });
    const other = await askGuardian(ctx.app, ctx.database.handle, await registerChild(ctx.app));
    const elsewhere = await started(other.token);
    identity.complete(elsewhere, 'CI-OF-THE-GUARDIAN', bornYearsAgo(40));
    expectValidationError(await withdraw(elsewhere), {
      identity_verification_id: ['The selected identity verification id is invalid.'],
    });
    await unchanged();

    // The guardian who consented, verified for this link: the consent is withdrawn, the deletion scheduled.
    const same = await started(link);
    identity.complete(same, 'CI-OF-THE-GUARDIAN', bornYearsAgo(40));
    const done = expectOk<{ deletion_due_at: string }>(await withdraw(same));
    expect(Date.parse(done.deletion_due_at)).toBeGreaterThan(Date.now());
    const row = await ctx.database.handle.db
      .selectFrom('users')
      .select(['guardian_consent', 'deletion_scheduled_at'])
      .where('id', '=', child.id)
      .executeTakeFirstOrThrow();
    expect(row.guardian_consent).toBe('pending');
    expect(row.deletion_scheduled_at).not.toBeNull();
    const event = await ctx.database.handle.db
      .selectFrom('account_events')
      .select('data')
      .where('user_id', '=', child.id)
      .where('type', '=', 'guardian.consented')
      .orderBy('id', 'desc')
      .executeTakeFirstOrThrow();
    expect(event.data).toMatchObject({ withdrawn: true, method: 'identity_verification' });
  });
});
