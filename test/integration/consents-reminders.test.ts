import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.js';
import { backends } from '../helpers/database.js';
import { bearer, registerUser } from '../helpers/factories.js';
import { expectOk, postForm } from '../helpers/http.js';
import { eventsOf } from '../helpers/security-events.js';
import { buildTestServices } from '../helpers/services.js';

describe.each(backends)('%s: marketing re-confirmation (accounts consent remind)', (backend) => {
  // Erased at once on user/delete: the last test checks the records go with the account.
  const ctx = useTestApp(backend, { DELETION_GRACE_DAYS: '0' });
  const db = () => ctx.database.handle.db;
  const remind = () => buildTestServices(ctx).consentReminders.run();

  /** Moves every record of the user (and its reminders) `days` into the past. */
  async function age(userId: string, days: number, table: 'consent_records' | 'consent_reminders') {
    const back = (column: string) => sql<Date>`${sql.ref(column)} - make_interval(days => ${days})`;
    if (table === 'consent_records') {
      await db()
        .updateTable('consent_records')
        .set({ recorded_at: back('recorded_at') })
        .where('user_id', '=', userId)
        .execute();
      return;
    }
    await db()
      .updateTable('consent_reminders')
      .set({ reminded_at: back('reminded_at') })
      .where('record_id', 'in', (eb) =>
        eb.selectFrom('consent_records').select('id').where('user_id', '=', userId),
      )
      .execute();
  }

  const mailsTo = (email: string) =>
    db()
      .selectFrom('mail_outbox')
      .select(['kind', 'locale', 'subject', 'text', 'html'])
      .where('to_address', '=', email)
      .where('kind', '=', 'consent_reconfirm')
      .execute();

  const latest = async (userId: string, key: string) =>
    db()
      .selectFrom('consent_records')
      .select(['agreed', 'channel', 'client_address'])
      .where('user_id', '=', userId)
      .where('key', '=', key)
      .orderBy('id', 'desc')
      .executeTakeFirstOrThrow();

  it('mails once after two years, then withdraws 30 days after an unanswered reminder', async () => {
    const me = await registerUser(ctx.app, {
      consent_marketing_email: 'on',
      consent_night_push: 'on',
    } as never);
    const fresh = await registerUser(ctx.app, { consent_marketing_push: 'on' } as never);
    await age(me.id, 2 * 366, 'consent_records');
    await remind();
    await ctx.mailer.idle();
    const mails = await mailsTo(me.email);
    // One mail per user, listing each agreement due; the required documents are never asked again.
    expect(mails).toHaveLength(1);
    expect(mails[0]).toMatchObject({ locale: 'en', subject: 'Do you still want our marketing messages?' });
    expect(mails[0]?.text).toContain('- Marketing by email');
    expect(mails[0]?.text).toContain('- Marketing push notifications at night (21:00–08:00)');
    expect(mails[0]?.text).toContain('/profile');
    expect(mails[0]?.text).toContain('within 30 days');
    expect(mails[0]?.html).toContain('<li>Marketing by email</li>');
    expect(await mailsTo(fresh.email)).toEqual([]);

    // A second run sends nothing twice and withdraws nothing yet.
    expect(await remind()).toEqual({ reminded: 0, withdrawn: 0 });
    expect(await mailsTo(me.email)).toHaveLength(1);
    expect(await latest(me.id, 'marketing_email')).toMatchObject({ agreed: true });

    // 30 days unanswered: both agreements are withdrawn, by expiry, once.
    await age(me.id, 31, 'consent_reminders');
    expect(await remind()).toEqual({ reminded: 0, withdrawn: 2 });
    expect(await latest(me.id, 'marketing_email')).toEqual({
      agreed: false,
      channel: 'expiry',
      client_address: null,
    });
    // Each withdrawal is in the security log, made by nobody: no address, no user agent.
    const expired = (await eventsOf(ctx.database.handle, me.id))
      .filter((e) => e.type === 'consent_changed')
      // Written in one transaction: their order among themselves is not the point.
      .sort((a, b) => String(a.details.key).localeCompare(String(b.details.key)));
    expect(expired).toEqual(
      ['marketing_email', 'night_push'].map((key) => ({
        type: 'consent_changed',
        ip: null,
        user_agent: null,
        details: { key, version: 1, agreed: false, by: 'automatic_expiry' },
      })),
    );
    expect(await remind()).toEqual({ reminded: 0, withdrawn: 0 });
    const consents = expectOk<{ consents: { key: string; agreed: boolean }[] }>(
      await ctx.app.inject({ method: 'GET', url: '/v1/user/consents', headers: bearer(me.token) }),
    ).consents;
    expect(consents.filter((c) => c.agreed).map((c) => c.key)).toEqual(['privacy', 'terms']);
    expect(await mailsTo(me.email)).toHaveLength(1);
  });

  it('keeps an agreement re-confirmed after the reminder, and asks again two years later', async () => {
    const me = await registerUser(ctx.app, { consent_marketing_sms: 'on' } as never);
    await age(me.id, 2 * 366, 'consent_records');
    await remind();
    expect(await mailsTo(me.email)).toHaveLength(1);
    // Re-confirming is agreeing again: a new record.
    expectOk(await postForm(ctx.app, '/v1/user/consents/update', { marketing_sms: 'on' }, bearer(me.token)));
    await age(me.id, 31, 'consent_reminders');
    expect((await remind()).withdrawn).toBe(0);
    expect(await latest(me.id, 'marketing_sms')).toMatchObject({ agreed: true, channel: 'update' });
    // Two years after the re-confirmation the question comes again.
    await age(me.id, 2 * 366, 'consent_records');
    await remind();
    expect(await mailsTo(me.email)).toHaveLength(2);
  });

  it('never reminds a withdrawn agreement, and its rows go with a deleted account', async () => {
    const me = await registerUser(ctx.app, { consent_marketing_email: 'on' } as never);
    expectOk(
      await postForm(ctx.app, '/v1/user/consents/update', { marketing_email: 'off' }, bearer(me.token)),
    );
    await age(me.id, 2 * 366, 'consent_records');
    await remind();
    expect(await mailsTo(me.email)).toEqual([]);
    const res = await postForm(
      ctx.app,
      '/v1/user/delete',
      { current_password: me.password },
      bearer(me.token),
    );
    expect(res.statusCode, res.body).toBe(200);
    const left = await db().selectFrom('consent_records').select('id').where('user_id', '=', me.id).execute();
    expect(left).toEqual([]);
  });

  it('withdraws nothing when its security event cannot be written: one transaction', async () => {
    const me = await registerUser(ctx.app, { consent_marketing_email: 'on' } as never);
    await age(me.id, 2 * 366, 'consent_records');
    await remind();
    await age(me.id, 31, 'consent_reminders');
    // The log refuses this user's expiry events (as a full disk or a lost connection would).
    const refuse = `refuse_${me.id.replaceAll('-', '')}`;
    // One statement each: the embedded database prepares every statement, and takes one at a time.
    await sql
      .raw(
        `CREATE FUNCTION ${refuse}() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
           RAISE EXCEPTION 'log unavailable'; END $$`,
      )
      .execute(db());
    await sql
      .raw(
        `CREATE TRIGGER ${refuse} BEFORE INSERT ON security_events FOR EACH ROW
           WHEN (NEW.user_id = '${me.id}' AND NEW.type = 'consent_changed') EXECUTE FUNCTION ${refuse}()`,
      )
      .execute(db());
    try {
      await expect(remind()).rejects.toThrow();
      expect(await latest(me.id, 'marketing_email')).toMatchObject({ agreed: true, channel: 'register' });
    } finally {
      await sql.raw(`DROP TRIGGER ${refuse} ON security_events`).execute(db());
      await sql.raw(`DROP FUNCTION ${refuse}()`).execute(db());
    }
    // The reminder stayed unsettled: the next run withdraws, and logs it.
    expect((await remind()).withdrawn).toBe(1);
    expect(await latest(me.id, 'marketing_email')).toMatchObject({ agreed: false, channel: 'expiry' });
    const logged = (await eventsOf(ctx.database.handle, me.id)).filter((e) => e.type === 'consent_changed');
    expect(logged.map((e) => e.details)).toEqual([
      { key: 'marketing_email', version: 1, agreed: false, by: 'automatic_expiry' },
    ]);
  });

  it('sends one mail and withdraws once when two runs meet', async () => {
    const me = await registerUser(ctx.app, { consent_marketing_push: 'on' } as never);
    await age(me.id, 2 * 366, 'consent_records');
    // Two servers' crons at once (on PostgreSQL really concurrent: separate connections).
    const first = await Promise.all([remind(), remind()]);
    expect(first.reduce((sum, run) => sum + run.reminded, 0)).toBeGreaterThanOrEqual(1);
    expect(await mailsTo(me.email)).toHaveLength(1);
    await age(me.id, 31, 'consent_reminders');
    const second = await Promise.all([remind(), remind()]);
    expect(second.reduce((sum, run) => sum + run.withdrawn, 0)).toBe(1);
    const withdrawals = await db()
      .selectFrom('consent_records')
      .select('id')
      .where('user_id', '=', me.id)
      .where('channel', '=', 'expiry')
      .execute();
    expect(withdrawals).toHaveLength(1);
  });
});
