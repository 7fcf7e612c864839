import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeTestApp, createTestApp, type TestApp } from '../helpers/app.js';
import { backends } from '../helpers/database.js';
import { registrationForm, unique } from '../helpers/factories.js';
import { expectOk, postForm } from '../helpers/http.js';
import {
  outboxFor,
  type SmtpFront,
  startSmtpFront,
  startTestSmtp,
  type TestSmtp,
  tokenFromText,
} from '../helpers/mail.js';

const FROM = 'Accounts Test <no-reply@accounts.test>';

/**
 * The mail settings of these suites: SMTP to the test's own server, no background retrier. The timeout is
 * small where a stall is the point, and roomy elsewhere (a loaded machine must not turn a slow reply into
 * a failed send).
 */
function smtpEnv(url: string, timeout = '5s'): Record<string, string> {
  return {
    MAIL_TRANSPORT: 'smtp',
    SMTP_URL: url,
    SMTP_TIMEOUT: timeout,
    MAIL_FROM: FROM,
    MAIL_RETRY_ATTEMPTS: '3',
    // The tests run each retry pass themselves.
    MAIL_RETRY_INTERVAL: '24h',
    PUBLIC_URL: 'https://accounts.test',
    PASSWORD_RESET_URL: 'accountsapp://reset-password?token={token}',
  };
}

describe.each(backends)('%s: mail over SMTP', (backend) => {
  let smtp: TestSmtp;
  let ctx: TestApp;

  beforeAll(async () => {
    smtp = await startTestSmtp();
    ctx = await createTestApp(backend, smtpEnv(smtp.url));
  });
  afterAll(async () => {
    if (ctx) await closeTestApp(ctx);
    if (smtp) await smtp.close();
  });

  /** Makes every pending mail due now (instead of waiting out its backoff) and runs one retry pass. */
  async function retryNow(): Promise<number> {
    await sql`UPDATE mail_outbox SET next_attempt_at = now() WHERE status = 'pending'`.execute(
      ctx.database.handle.db,
    );
    return ctx.mailer.retryDue();
  }

  async function register(headers: Record<string, string> = {}) {
    const form = registrationForm();
    expectOk(await postForm(ctx.app, '/v1/auth/register', form, headers));
    return form;
  }

  it('claims a mail for its writer: sent once without a claim, or by the retrier when its lease runs out', async () => {
    const db = ctx.database.handle.db;
    const to = `lease${unique()}@example.com`;
    const values = {
      username: 'lease',
      link: 'https://accounts.test/verify-email?token=x',
      validForMs: 60_000,
    };
    // Written as a request would, but never handed to sendSoon: the instance died after its commit.
    const queued = await ctx.mailer.queueWithin(db, to, 'email_verify', 'en', values);
    if (!queued) throw new Error('rate limits are off here: the mail is written');
    const [claimed] = await outboxFor(ctx.database.handle, to);
    expect(claimed).toMatchObject({ id: queued.id, status: 'pending', attempts: 1 });
    const { rows } = await sql<{ seconds: number }>`
      SELECT extract(epoch FROM next_attempt_at - now())::float AS seconds FROM mail_outbox WHERE id = ${queued.id}
    `.execute(db);
    // The lease: ten send timeouts (5 s here), at least a minute.
    expect(rows[0]?.seconds).toBeGreaterThan(55);
    expect(rows[0]?.seconds).toBeLessThanOrEqual(60);
    // Not due: no other sender takes it while its writer may still be sending it.
    expect(await ctx.mailer.retryDue()).toBe(0);
    expect(smtp.mails.filter((mail) => JSON.stringify(mail.to).includes(to))).toHaveLength(0);

    await sql`UPDATE mail_outbox SET next_attempt_at = now() WHERE id = ${queued.id}`.execute(db);
    expect(await ctx.mailer.retryDue()).toBe(1);
    expect((await smtp.mailTo(to)).subject).toBe('Confirm your email address');
    expect((await outboxFor(ctx.database.handle, to))[0]).toMatchObject({ status: 'sent', attempts: 2 });
  });

  it('delivers the verification mail in English, text and HTML, with a link that works', async () => {
    const form = await register();
    const mail = await smtp.mailTo(form.email);
    expect(mail.subject).toBe('Confirm your email address');
    expect(mail.from?.value).toEqual([{ name: 'Accounts Test', address: 'no-reply@accounts.test' }]);
    const token = tokenFromText(mail.text);
    expect(mail.text).toContain(`https://accounts.test/verify-email?token=${token}`);
    expect(mail.html).toContain(`<a href="https://accounts.test/verify-email?token=${token}">`);
    expect(mail.text).toContain(`Hello ${form.username},`);
    expect(expectOk(await postForm(ctx.app, '/v1/auth/email/verify', { token }))).toEqual({
      status: 'verified',
    });
    // Delivered: the row keeps no copy of the secret link.
    await ctx.mailer.idle();
    const [row] = await outboxFor(ctx.database.handle, form.email);
    expect(row).toMatchObject({ status: 'sent', transport: 'smtp', attempts: 1, text: null, html: null });
  });

  it('delivers the password-reset mail in Korean, with a link (a deep link here) that works', async () => {
    const form = await register();
    await smtp.mailTo(form.email);
    expectOk(
      await postForm(ctx.app, '/v1/auth/password/forgot', { email: form.email }, { 'accept-language': 'ko' }),
    );
    await ctx.mailer.idle();
    const mail = smtp.mails.filter(
      (m) => m.subject === '비밀번호 재설정 안내' && m.text?.includes(form.username),
    );
    expect(mail).toHaveLength(1);
    const text = mail[0]?.text ?? '';
    expect(text).toContain(`${form.username}님, 안녕하세요.`);
    expect(text).toContain('1시간 후에 만료됩니다');
    const token = tokenFromText(text);
    expect(text).toContain(`accountsapp://reset-password?token=${token}`);
    const password = `Korean-Reset-${unique()}`;
    const { user } = expectOk<{ user: { email_verified: boolean; api_token: string } }>(
      await postForm(ctx.app, '/v1/auth/password/reset', { token, password }),
    );
    expect(user.email_verified).toBe(true);
    expectOk(await postForm(ctx.app, '/v1/auth/login/email', { email: form.email, password }));
  });

  it('keeps a committed request successful when the server refuses, and delivers on a later retry', async () => {
    smtp.refuse = true;
    const form = await register().finally(() => ctx.mailer.idle());
    try {
      const [row] = await outboxFor(ctx.database.handle, form.email);
      expect(row).toMatchObject({ status: 'pending', attempts: 1 });
      expect(row?.last_error).toMatch(/550/);
      expect(row?.text).toContain('verify-email?token=');
      // Still refusing: the retry fails too, and is counted.
      expect(await retryNow()).toBeGreaterThanOrEqual(1);
      expect((await outboxFor(ctx.database.handle, form.email))[0]).toMatchObject({
        status: 'pending',
        attempts: 2,
      });
    } finally {
      smtp.refuse = false;
    }
    await retryNow();
    const [row] = await outboxFor(ctx.database.handle, form.email);
    expect(row).toMatchObject({ status: 'sent', attempts: 3, last_error: null, text: null });
    const token = tokenFromText((await smtp.mailTo(form.email)).text);
    expectOk(await postForm(ctx.app, '/v1/auth/email/verify', { token }));
  });

  it('gives up after MAIL_RETRY_ATTEMPTS and drops the body', async () => {
    smtp.refuse = true;
    try {
      const form = await register();
      await ctx.mailer.idle();
      await retryNow();
      await retryNow();
      const [row] = await outboxFor(ctx.database.handle, form.email);
      expect(row).toMatchObject({ status: 'failed', attempts: 3, text: null, html: null });
      // A failed mail is not tried again.
      await retryNow();
      expect((await outboxFor(ctx.database.handle, form.email))[0]).toMatchObject({ attempts: 3 });
    } finally {
      smtp.refuse = false;
    }
  });

  it('backs off exponentially between attempts', async () => {
    smtp.refuse = true;
    try {
      const form = await register();
      await ctx.mailer.idle();
      const delay = async () => {
        const { rows } = await sql<{ seconds: number }>`
          SELECT extract(epoch FROM next_attempt_at - now())::float AS seconds FROM mail_outbox
          WHERE to_address = ${form.email}`.execute(ctx.database.handle.db);
        return rows[0]?.seconds ?? 0;
      };
      const first = await delay();
      await retryNow();
      const second = await delay();
      // 30 s, then 60 s (MAIL_RETRY_BASE_DELAY doubled): compared as a ratio, never as absolute time.
      expect(second / first).toBeGreaterThan(1.8);
      expect(second / first).toBeLessThan(2.2);
    } finally {
      smtp.refuse = false;
    }
  });
});

describe.each(backends)('%s: mail to an SMTP server that stalls', (backend) => {
  let smtp: TestSmtp;
  let front: SmtpFront;
  let ctx: TestApp;

  beforeAll(async () => {
    smtp = await startTestSmtp();
    front = await startSmtpFront(smtp.url);
    ctx = await createTestApp(backend, smtpEnv(front.url, '500ms'));
  });
  afterAll(async () => {
    if (ctx) await closeTestApp(ctx);
    if (front) await front.close();
    if (smtp) await smtp.close();
  });

  it('answers the request, times the send out, and delivers from the outbox once the server answers', async () => {
    front.stall = true;
    const form = registrationForm();
    expectOk(await postForm(ctx.app, '/v1/auth/password/forgot', { email: `nobody${unique()}@example.com` }));
    expectOk(await postForm(ctx.app, '/v1/auth/register', form));
    await ctx.mailer.idle();
    const [row] = await outboxFor(ctx.database.handle, form.email);
    expect(row).toMatchObject({ status: 'pending', attempts: 1 });
    expect(row?.last_error).toMatch(/timeout|ETIMEDOUT|ECONNECTION|Greeting/i);
    expect(smtp.mails).toHaveLength(0);

    front.stall = false;
    await sql`UPDATE mail_outbox SET next_attempt_at = now() WHERE status = 'pending'`.execute(
      ctx.database.handle.db,
    );
    expect(await ctx.mailer.retryDue()).toBe(1);
    expect((await outboxFor(ctx.database.handle, form.email))[0]).toMatchObject({
      status: 'sent',
      attempts: 2,
    });
    const token = tokenFromText((await smtp.mailTo(form.email)).text);
    expectOk(await postForm(ctx.app, '/v1/auth/email/verify', { token }));
  });
});
