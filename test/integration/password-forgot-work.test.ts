import { describe, expect, it } from 'vitest';
import { backends } from '../helpers/database.js';
import { registerUser, unique } from '../helpers/factories.js';
import { expectOk, postForm } from '../helpers/http.js';
import { outboxFor } from '../helpers/mail.js';
import { useRecordedApp } from '../helpers/query-recorder.js';

const FORGOT = '/v1/auth/password/forgot';

/**
 * Forgot-password answers in the same time whether an account has the address: until the answer is written
 * both paths do the same work (count the address), and the lookup, the link and its mail come after it.
 * Timing itself is measured by the bench (`--scenarios=forgot-timing`), never asserted.
 */
describe.each(backends)('%s: the work of a forgot-password request', (backend) => {
  const ctx = useRecordedApp(backend, () => ({
    RATE_LIMIT_ENABLED: 'true',
    RATE_LIMIT_PASSWORD_FORGOT_EMAIL: '100/1h',
    RATE_LIMIT_PASSWORD_FORGOT_IP: '100/1h',
  }));

  /** The statements made before the answer arrived, and those made after it (the mail's). */
  async function forgot(email: string): Promise<{ before: string[]; after: string[] }> {
    await ctx.mailer.idle();
    ctx.recorder.reset();
    expect(expectOk(await postForm(ctx.app, FORGOT, { email }))).toEqual({ status: 'sent' });
    const before = ctx.recorder.statements.map((statement) => statement.sql);
    await ctx.mailer.idle();
    return { before, after: ctx.recorder.statements.map((statement) => statement.sql).slice(before.length) };
  }

  it('does the same before answering for a known and an unknown address, and mails only the known', async () => {
    const known = await registerUser(ctx.app);
    const unknown = `nobody${unique()}@example.com`;
    const forKnown = await forgot(known.email);
    const forUnknown = await forgot(unknown);
    expect(forKnown.before).toEqual(forUnknown.before);
    expect(forKnown.before).toEqual([]);
    // After the answer: the account's lookup either way, then only for the known one its link and mail.
    expect(forUnknown.after).toHaveLength(1);
    expect(forKnown.after[0]).toBe(forUnknown.after[0]);
    expect(forKnown.after.some((sql) => /insert into "?mail_outbox"?/i.test(sql))).toBe(true);
    const mails = await outboxFor(ctx.database.handle, known.email);
    expect(mails.filter((mail) => mail.kind === 'password_reset')).toHaveLength(1);
    expect(await outboxFor(ctx.database.handle, unknown)).toEqual([]);
  });
});
