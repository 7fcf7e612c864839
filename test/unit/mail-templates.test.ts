import { describe, expect, it } from 'vitest';
import { escapeHtml, renderMail } from '../../src/mail/templates.js';
import { linkWithToken } from '../../src/modules/lifecycle/links.js';

const values = { username: 'kim', link: 'https://a.test/verify-email?token=abc&x=1', validForMs: 86_400_000 };

describe('mail templates', () => {
  it.each([
    ['email_verify', 'en', 'Confirm your email address', 'expires in 24 hours'],
    ['email_verify', 'ko', '이메일 주소를 확인해 주세요', '24시간 후에 만료됩니다'],
    ['password_reset', 'en', 'Reset your password', 'expires in 24 hours'],
    ['password_reset', 'ko', '비밀번호 재설정 안내', '24시간 후에 만료됩니다'],
  ] as const)('%s in %s: subject, text and HTML carry the link', (kind, locale, subject, expiry) => {
    const mail = renderMail(kind, locale, values);
    expect(mail.subject).toBe(subject);
    expect(mail.text).toContain(values.link);
    expect(mail.text).toContain(expiry);
    expect(mail.html).toContain(`<html lang="${locale}">`);
    expect(mail.html).toContain('href="https://a.test/verify-email?token=abc&amp;x=1"');
  });

  it('says minutes when the lifetime is not whole hours', () => {
    expect(renderMail('password_reset', 'en', { ...values, validForMs: 900_000 }).text).toContain(
      '15 minutes',
    );
    expect(renderMail('password_reset', 'ko', { ...values, validForMs: 900_000 }).text).toContain('15분');
  });

  it('escapes user-controlled values in HTML (and leaves the plain text as written)', () => {
    const mail = renderMail('email_verify', 'en', { ...values, username: '<img src=x onerror=alert(1)>"' });
    expect(mail.html).not.toContain('<img');
    expect(mail.html).toContain('Hello &lt;img src=x onerror=alert(1)&gt;&quot;,');
    expect(mail.text).toContain('Hello <img src=x onerror=alert(1)>",');
    expect(escapeHtml(`&<>"'`)).toBe('&amp;&lt;&gt;&quot;&#39;');
  });

  it('puts the token into the link template', () => {
    expect(linkWithToken('myapp://reset?token={token}&from=mail', 'Ab_-9')).toBe(
      'myapp://reset?token=Ab_-9&from=mail',
    );
  });
});
