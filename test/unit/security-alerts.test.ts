import { describe, expect, it } from 'vitest';
import { renderSecurityAlert, type SecurityAlertKind } from '../../src/mail/security-alerts.js';

const VALUES = {
  username: 'minji',
  at: new Date('2026-11-23T12:40:00Z'),
  device: 'Chrome on macOS',
  ip: '203.0.113.7',
  resetLink: 'https://accounts.example.com/reset-password',
};

const FACTOR_KINDS: SecurityAlertKind[] = [
  'alert_passkey_added',
  'alert_passkey_removed',
  'alert_second_factor_enabled',
  'alert_second_factor_disabled',
  'alert_recovery_codes_regenerated',
  'alert_phone_verified',
  'alert_phone_removed',
];

describe('security alerts of the sign-in factors', () => {
  it('has a subject and a lead of its own in each language', () => {
    for (const locale of ['en', 'ko'] as const) {
      const rendered = FACTOR_KINDS.map((kind) => renderSecurityAlert(kind, locale, VALUES));
      expect(new Set(rendered.map((mail) => mail.subject)).size).toBe(FACTOR_KINDS.length);
      for (const mail of rendered) {
        expect(mail.text).toContain('203.0.113.7');
        expect(mail.html).toContain('<a href="https://accounts.example.com/reset-password">');
      }
    }
  });

  it('names the passkey, escaped in HTML and as written in the text', () => {
    const passkey = '<img src=x onerror=alert(1)>';
    const mail = renderSecurityAlert('alert_passkey_removed', 'en', { ...VALUES, passkey });
    expect(mail.text).toContain(`A passkey (“${passkey}”) was removed from your account.`);
    expect(mail.html).not.toContain('<img');
    expect(mail.html).toContain('(“&lt;img src=x onerror=alert(1)&gt;”)');
  });

  it('says so when an operator turned the second factor off', () => {
    const byUser = renderSecurityAlert('alert_second_factor_disabled', 'ko', VALUES);
    const byOperator = renderSecurityAlert('alert_second_factor_disabled', 'ko', {
      ...VALUES,
      byOperator: true,
    });
    expect(byUser.text).not.toContain('고객지원팀');
    expect(byOperator.text).toContain('고객지원팀');
    expect(byOperator.subject).toBe(byUser.subject);
  });
});
