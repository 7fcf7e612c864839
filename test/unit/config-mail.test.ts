import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { configError } from '../helpers/config.js';

describe('mail configuration', () => {
  it('defaults to the log transport, 24 h verification and 60 min reset links on this service', () => {
    expect(loadConfig({ PORT: '9090' }).mail).toEqual({
      transport: 'log',
      smtp: undefined,
      from: 'Accounts <no-reply@localhost>',
      retry: { maxAttempts: 5, baseDelayMs: 30_000, maxDelayMs: 3_600_000, intervalMs: 30_000 },
      emailVerifyTtlMs: 86_400_000,
      passwordResetTtlMs: 3_600_000,
      publicUrl: 'http://localhost:9090',
      emailVerifyUrl: 'http://localhost:9090/verify-email?token={token}',
      passwordResetUrl: 'http://localhost:9090/reset-password?token={token}',
      deletionCancelUrl: 'http://localhost:9090/cancel-deletion?token={token}',
    });
  });

  it('reads SMTP from one URL, with its credentials decoded and STARTTLS or TLS by scheme', () => {
    const mail = loadConfig({
      MAIL_TRANSPORT: 'SMTP',
      SMTP_URL: 'smtp://mailer%40example.com:p%40ss@mail.example.com',
      SMTP_TIMEOUT: '2500ms',
      MAIL_FROM: 'Team <team@example.com>',
      MAIL_RETRY_ATTEMPTS: '8',
      MAIL_RETRY_BASE_DELAY: '10s',
      MAIL_RETRY_MAX_DELAY: '2h',
      MAIL_RETRY_INTERVAL: '1m',
      EMAIL_VERIFY_TTL: '2d',
      PASSWORD_RESET_TTL: '15m',
      PUBLIC_URL: 'https://accounts.example.com/',
      PASSWORD_RESET_URL: 'myapp://reset?token={token}',
    }).mail;
    expect(mail.smtp).toEqual({
      host: 'mail.example.com',
      port: 587,
      secure: false,
      auth: { user: 'mailer@example.com', pass: 'p@ss' },
      timeoutMs: 2500,
    });
    expect(mail.retry).toEqual({
      maxAttempts: 8,
      baseDelayMs: 10_000,
      maxDelayMs: 7_200_000,
      intervalMs: 60_000,
    });
    expect(mail).toMatchObject({
      transport: 'smtp',
      from: 'Team <team@example.com>',
      emailVerifyTtlMs: 172_800_000,
      passwordResetTtlMs: 900_000,
      emailVerifyUrl: 'https://accounts.example.com/verify-email?token={token}',
      passwordResetUrl: 'myapp://reset?token={token}',
    });
    expect(loadConfig({ MAIL_TRANSPORT: 'smtp', SMTP_URL: 'smtps://[::1]' }).mail.smtp).toMatchObject({
      host: '::1',
      port: 465,
      secure: true,
      auth: undefined,
    });
  });

  it('refuses SMTP without a usable URL, and never echoes it', () => {
    expect(configError({ MAIL_TRANSPORT: 'smtp' }).variable).toBe('SMTP_URL');
    const error = configError({ MAIL_TRANSPORT: 'smtp', SMTP_URL: 'http://user:hunter2@mail.example.com' });
    expect(error.variable).toBe('SMTP_URL');
    expect(error.message).not.toContain('hunter2');
  });

  it.each([
    ['MAIL_TRANSPORT', 'sendmail'],
    ['EMAIL_VERIFY_TTL', '10'],
    ['EMAIL_VERIFY_TTL', '24 hours'],
    ['PASSWORD_RESET_TTL', '2d'],
    ['SMTP_TIMEOUT', '5ms'],
    ['MAIL_RETRY_ATTEMPTS', '0'],
    ['PASSWORD_RESET_URL', 'https://example.com/reset'],
    ['EMAIL_VERIFY_URL', '/verify-email?token={token}'],
    ['PUBLIC_URL', 'accounts.example.com'],
  ])('refuses %s=%s, naming the variable', (variable, value) => {
    expect(configError({ [variable]: value }).variable).toBe(variable);
  });
});
