export type { SecurityAlertValues } from './alert-wording.js';

import type { Locale } from '../validation/messages.js';
import type { AlertWording, SecurityAlertValues } from './alert-wording.js';
import { FACTOR_WORDING, type FactorAlertKind } from './factor-alerts.js';
import { escapeHtml, type MailContent } from './templates.js';

/** The security alerts the service mails (SECURITY_ALERTS), each the mail kind of its outbox row. */
export type SecurityAlertKind =
  | 'alert_new_device'
  | 'alert_password_changed'
  | 'alert_password_reset'
  | 'alert_email_changed'
  | 'alert_provider_linked'
  | 'alert_provider_unlinked'
  | 'alert_deletion_requested'
  | FactorAlertKind;

const WORDING: Record<SecurityAlertKind, Record<Locale, AlertWording>> = {
  alert_new_device: {
    en: {
      subject: 'New sign-in to your account',
      lead: () => 'Your account was signed in to from a new device.',
    },
    ko: { subject: '새 기기에서 로그인했습니다', lead: () => '새 기기에서 계정에 로그인했습니다.' },
  },
  alert_password_changed: {
    en: { subject: 'Your password was changed', lead: () => 'The password of your account was changed.' },
    ko: { subject: '비밀번호가 변경되었습니다', lead: () => '계정의 비밀번호가 변경되었습니다.' },
  },
  alert_password_reset: {
    en: {
      subject: 'Your password was reset',
      lead: () => 'The password of your account was reset through a link mailed to you.',
    },
    ko: {
      subject: '비밀번호가 재설정되었습니다',
      lead: () => '메일로 받은 링크로 계정의 비밀번호가 재설정되었습니다.',
    },
  },
  alert_email_changed: {
    en: {
      subject: 'Your email address was changed',
      lead: () => 'The email address of your account was changed: mail will no longer come to this address.',
    },
    ko: {
      subject: '이메일 주소가 변경되었습니다',
      lead: () => '계정의 이메일 주소가 변경되어 앞으로 이 주소로는 메일이 가지 않습니다.',
    },
  },
  alert_provider_linked: {
    en: {
      subject: 'A sign-in method was added',
      lead: (v) => `${v.provider ?? 'A provider'} was linked to your account: it can now sign in with it.`,
    },
    ko: {
      subject: '로그인 수단이 추가되었습니다',
      lead: (v) => `${v.provider ?? '외부 계정'} 계정이 연결되어 이제 그 계정으로 로그인할 수 있습니다.`,
    },
  },
  alert_provider_unlinked: {
    en: {
      subject: 'A sign-in method was removed',
      lead: (v) => `${v.provider ?? 'A provider'} was unlinked from your account.`,
    },
    ko: {
      subject: '로그인 수단이 제거되었습니다',
      lead: (v) => `${v.provider ?? '외부 계정'} 계정의 연결이 해제되었습니다.`,
    },
  },
  alert_deletion_requested: {
    en: {
      subject: 'Your account is scheduled for deletion',
      lead: () => 'Someone asked to delete your account.',
    },
    ko: { subject: '계정 삭제가 요청되었습니다', lead: () => '계정 삭제 요청이 있었습니다.' },
  },
  ...FACTOR_WORDING,
};

const LABELS: Record<
  Locale,
  {
    greeting: (name: string) => string;
    when: string;
    device: string;
    ip: string;
    advice: string;
    action: string;
  }
> = {
  en: {
    greeting: (name) => `Hello ${name},`,
    when: 'When',
    device: 'Device',
    ip: 'IP address',
    advice:
      'If this was you, there is nothing to do. If it was not, reset your password now (it signs out every device) and check your account.',
    action: 'Reset your password',
  },
  ko: {
    greeting: (name) => `${name}님, 안녕하세요.`,
    when: '시각',
    device: '기기',
    ip: 'IP 주소',
    advice:
      '본인이 한 일이라면 따로 하실 일은 없습니다. 본인이 아니라면 지금 비밀번호를 재설정하고(모든 기기에서 로그아웃됩니다) 계정을 확인해 주세요.',
    action: '비밀번호 재설정',
  },
};

/** `2026-11-23 12:40 UTC`: the same in both languages, and unambiguous wherever the reader is. */
function when(at: Date): string {
  return `${at.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

/** An alert in this language, as plain text and as HTML (every inserted value escaped). */
export function renderSecurityAlert(
  kind: SecurityAlertKind,
  locale: Locale,
  values: SecurityAlertValues,
): MailContent {
  const wording = WORDING[kind][locale];
  const labels = LABELS[locale];
  const facts: Array<[string, string]> = [
    [labels.when, when(values.at)],
    [labels.device, values.device],
    [labels.ip, values.ip],
  ];
  const lead = wording.lead(values);
  const text = [
    labels.greeting(values.username),
    '',
    lead,
    '',
    ...facts.map(([label, value]) => `${label}: ${value}`),
    '',
    labels.advice,
    values.resetLink,
    '',
  ].join('\n');
  const link = escapeHtml(values.resetLink);
  const html = `<!doctype html>
<html lang="${locale}">
<head><meta charset="utf-8"><title>${escapeHtml(wording.subject)}</title></head>
<body>
<p>${escapeHtml(labels.greeting(values.username))}</p>
<p>${escapeHtml(lead)}</p>
<ul>
${facts.map(([label, value]) => `<li>${escapeHtml(label)}: ${escapeHtml(value)}</li>`).join('\n')}
</ul>
<p>${escapeHtml(labels.advice)}</p>
<p><a href="${link}">${escapeHtml(labels.action)}</a></p>
</body>
</html>
`;
  return { subject: wording.subject, text, html };
}
