import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeTestApp, createTestApp, type TestApp } from '../helpers/app.js';
import { backends } from '../helpers/database.js';
import { bearer, registrationForm, unique } from '../helpers/factories.js';
import { expectOk, postForm, postJson } from '../helpers/http.js';
import { logSink } from '../helpers/logs.js';
import { latestToken, recipients, startTestSmtp, type TestSmtp, tokenFromText } from '../helpers/mail.js';

/**
 * Nothing secret in logs: every verification and reset token the flows produce, over both transports and
 * through failed and retried sends, is looked for in every line the app logged (at the most verbose level).
 */
describe.each(backends)('%s: account-lifecycle tokens never reach a log line', (backend) => {
  let smtp: TestSmtp;
  const apps: Array<{ ctx: TestApp; lines: string[] }> = [];

  beforeAll(async () => {
    smtp = await startTestSmtp();
    const envs: Record<string, string>[] = [
      { MAIL_TRANSPORT: 'log' },
      { MAIL_TRANSPORT: 'smtp', SMTP_URL: smtp.url, SMTP_TIMEOUT: '5s', MAIL_RETRY_INTERVAL: '24h' },
    ];
    for (const env of envs) {
      const { stream, lines } = logSink();
      apps.push({
        ctx: await createTestApp(backend, { ...env, LOG_LEVEL: 'trace' }, { logStream: stream }),
        lines,
      });
    }
  });
  afterAll(async () => {
    for (const { ctx } of apps) await closeTestApp(ctx);
    if (smtp) await smtp.close();
  });

  /** Runs sign-up, verification, resend, an email change, forgot and reset; returns every token mailed. */
  async function everyFlow(ctx: TestApp, readToken: (email: string, kind: string) => Promise<string>) {
    const tokens: string[] = [];
    const form = registrationForm();
    const { user } = expectOk<{ user: { api_token: string } }>(
      await postForm(ctx.app, '/v1/auth/register', form),
    );
    tokens.push(user.api_token);
    const first = await readToken(form.email, 'email_verify');
    tokens.push(first);
    expectOk(await postForm(ctx.app, '/v1/user/email/resend', {}, bearer(user.api_token)));
    const second = await readToken(form.email, 'email_verify');
    tokens.push(second);
    // A used and an unused token presented in every way a client might: body, JSON, query string.
    expectOk(await postJson(ctx.app, '/v1/auth/email/verify', { token: second }));
    await ctx.app.inject({ method: 'POST', url: `/v1/auth/email/verify?token=${first}` });
    for (const page of ['reset-password', 'verify-email']) {
      await ctx.app.inject({ method: 'GET', url: `/${page}?token=${first}` });
    }
    const newEmail = `logs${unique()}@example.com`;
    expectOk(
      await postForm(
        ctx.app,
        '/v1/user/update',
        { email: newEmail, current_password: form.password },
        bearer(user.api_token),
      ),
    );
    tokens.push(await readToken(newEmail, 'email_verify'));
    expectOk(await postForm(ctx.app, '/v1/auth/password/forgot', { email: newEmail }));
    const reset = await readToken(newEmail, 'password_reset');
    tokens.push(reset);
    const { user: again } = expectOk<{ user: { api_token: string } }>(
      await postForm(ctx.app, '/v1/auth/password/reset', { token: reset, password: `Log-Safe-${unique()}` }),
    );
    tokens.push(again.api_token);
    await postForm(ctx.app, '/v1/auth/password/reset', { token: reset, password: `Log-Safe-${unique()}` });
    return tokens;
  }

  it('with the log transport', async () => {
    const { ctx, lines } = apps[0] as (typeof apps)[number];
    const tokens = await everyFlow(ctx, async (email, kind) => {
      await ctx.mailer.idle();
      return latestToken(ctx.database.handle, email, kind);
    });
    const text = lines.join('');
    // The logs are there (so this test can fail): the mail lines, and the redacted page URLs.
    expect(text).toContain('mail written to the outbox');
    expect(text).toMatch(/"url":"\/(reset-password|verify-email)\?token"/);
    for (const token of tokens) expect(text).not.toContain(token);
  });

  it('with SMTP, through a refused send and its retry', async () => {
    const { ctx, lines } = apps[1] as (typeof apps)[number];
    smtp.refuse = true;
    const form = registrationForm();
    try {
      expectOk(await postForm(ctx.app, '/v1/auth/register', form));
      await ctx.mailer.idle();
    } finally {
      smtp.refuse = false;
    }
    await ctx.database.handle.db
      .updateTable('mail_outbox')
      .set({ next_attempt_at: new Date(0) })
      .execute();
    await ctx.mailer.retryDue();
    const refused = tokenFromText((await smtp.mailTo(form.email)).text);
    const tokens = await everyFlow(ctx, async (email, kind) => {
      await ctx.mailer.idle();
      const subject = kind === 'password_reset' ? 'Reset your password' : 'Confirm your email address';
      const mails = smtp.mails.filter(
        (mail) => mail.subject === subject && recipients(mail).includes(email.toLowerCase()),
      );
      return tokenFromText(mails.at(-1)?.text);
    });
    const text = lines.join('');
    expect(text).toContain('mail delivery failed; will retry');
    for (const token of [refused, ...tokens]) expect(text).not.toContain(token);
  });
});
