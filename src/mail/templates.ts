import type { Locale } from '../validation/messages.js';
import { GUARDIAN_WORDING, type GuardianMailKind } from './guardian-mail.js';
import type { Wording } from './wording.js';

/** The mails the service sends. */
export type MailKind =
  | 'email_verify'
  | 'password_reset'
  | 'data_export_ready'
  | 'consent_reconfirm'
  | 'deletion_scheduled'
  | GuardianMailKind;

export interface MailContent {
  subject: string;
  text: string;
  html: string;
}

export interface MailValues {
  /** The user's name (user-controlled: escaped in HTML). */
  username: string;
  /** The link carrying the secret token. */
  link: string;
  /** How long the link works (or, for a re-confirmation, how long the agreement stays without an answer). */
  validForMs: number;
  /** What the mail is about, listed after its lead (the documents to re-confirm). */
  items?: readonly string[];
}

/** HTML-escapes a value for element content and double-quoted attributes. */
export function escapeHtml(value: string): string {
  return value
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&#39;');
}

function validFor(ms: number, locale: Locale): string {
  const days = ms / 86_400_000;
  // Days only past two of them: a day's lifetime still reads "24 hours".
  if (Number.isInteger(days) && days > 2) return locale === 'ko' ? `${days}일` : `${days} days`;
  const hours = ms / 3_600_000;
  if (Number.isInteger(hours)) {
    if (locale === 'ko') return `${hours}시간`;
    return hours === 1 ? '1 hour' : `${hours} hours`;
  }
  const minutes = Math.max(1, Math.round(ms / 60_000));
  if (locale === 'ko') return `${minutes}분`;
  return minutes === 1 ? '1 minute' : `${minutes} minutes`;
}

/** A grace period in whole days (rounded up: the link never works for less than it says). */
function inDays(ms: number, locale: Locale): string {
  const days = Math.max(1, Math.ceil(ms / 86_400_000));
  if (locale === 'ko') return `${days}일`;
  return days === 1 ? '1 day' : `${days} days`;
}

const WORDING: Record<MailKind, Record<Locale, Wording>> = {
  email_verify: {
    en: {
      subject: 'Confirm your email address',
      greeting: (name) => `Hello ${name},`,
      lead: 'Please confirm that this is your email address by opening the link below.',
      action: 'Confirm email address',
      expiry: (duration) => `The link works once and expires in ${duration}.`,
      ignore: 'If you did not create an account or change your email, you can ignore this mail.',
    },
    ko: {
      subject: '이메일 주소를 확인해 주세요',
      greeting: (name) => `${name}님, 안녕하세요.`,
      lead: '아래 링크를 열어 이 이메일 주소가 본인의 주소임을 확인해 주세요.',
      action: '이메일 주소 확인',
      expiry: (duration) => `링크는 한 번만 사용할 수 있으며 ${duration} 후에 만료됩니다.`,
      ignore: '계정을 만들거나 이메일을 변경한 적이 없다면 이 메일을 무시하셔도 됩니다.',
    },
  },
  password_reset: {
    en: {
      subject: 'Reset your password',
      greeting: (name) => `Hello ${name},`,
      lead: 'Someone asked to reset the password of your account. Open the link below to choose a new one.',
      action: 'Choose a new password',
      expiry: (duration) =>
        `The link works once and expires in ${duration}. Setting a new password signs out every device.`,
      ignore: 'If you did not ask for this, ignore this mail: your password stays as it is.',
    },
    ko: {
      subject: '비밀번호 재설정 안내',
      greeting: (name) => `${name}님, 안녕하세요.`,
      lead: '계정의 비밀번호 재설정 요청이 있었습니다. 아래 링크를 열어 새 비밀번호를 정해 주세요.',
      action: '새 비밀번호 정하기',
      expiry: (duration) =>
        `링크는 한 번만 사용할 수 있으며 ${duration} 후에 만료됩니다. 새 비밀번호를 정하면 모든 기기에서 로그아웃됩니다.`,
      ignore: '직접 요청하지 않으셨다면 이 메일을 무시하세요. 비밀번호는 바뀌지 않습니다.',
    },
  },
  data_export_ready: {
    en: {
      subject: 'Your data is ready to download',
      greeting: (name) => `Hello ${name},`,
      lead: 'The copy of your data you asked for is ready. Open the link below to download it as a zip file.',
      action: 'Download your data',
      expiry: (duration) => `The link works for ${duration}; after that the file is deleted.`,
      ignore:
        'If you did not ask for a copy of your data, change your password: someone signed in to your account did.',
    },
    ko: {
      subject: '요청하신 데이터가 준비되었습니다',
      greeting: (name) => `${name}님, 안녕하세요.`,
      lead: '요청하신 데이터 사본이 준비되었습니다. 아래 링크를 열어 zip 파일로 내려받으세요.',
      action: '데이터 내려받기',
      expiry: (duration) => `링크는 ${duration} 동안 사용할 수 있으며, 그 후 파일은 삭제됩니다.`,
      ignore:
        '데이터 사본을 요청하지 않으셨다면 비밀번호를 변경해 주세요. 다른 사람이 계정에 로그인해 요청한 것입니다.',
    },
  },
  consent_reconfirm: {
    en: {
      subject: 'Do you still want our marketing messages?',
      greeting: (name) => `Hello ${name},`,
      lead:
        'More than two years ago you agreed to receive marketing messages from us. The law asks us to check ' +
        'every two years that you still want them:',
      action: 'Review my consents',
      expiry: (duration) =>
        `If you still want them, agree again on your profile page within ${duration}. Otherwise we stop ` +
        'sending them and record that your consent was withdrawn.',
      ignore: 'You can change these choices on your profile page at any time.',
    },
    ko: {
      subject: '광고성 정보 수신 동의 여부를 확인해 주세요',
      greeting: (name) => `${name}님, 안녕하세요.`,
      lead: '2년 전 광고성 정보 수신에 동의하셨습니다. 관련 법령에 따라 2년마다 수신 동의 여부를 확인합니다:',
      action: '내 동의 내역 확인',
      expiry: (duration) =>
        `계속 받으시려면 ${duration} 안에 프로필 페이지에서 다시 동의해 주세요. 그렇지 않으면 발송을 중단하고 동의 철회로 기록합니다.`,
      ignore: '프로필 페이지에서 언제든지 수신 여부를 바꿀 수 있습니다.',
    },
  },
  deletion_scheduled: {
    en: {
      inDays: true,
      subject: 'Your account is scheduled for deletion',
      greeting: (name) => `Hello ${name},`,
      lead:
        'You asked to delete your account. It is signed out everywhere and hidden from others until it is ' +
        'deleted for good. Changed your mind? Open the link below to keep your account.',
      action: 'Keep my account',
      expiry: (duration) =>
        `Your account and everything of it will be deleted in ${duration}; until then the link works once.`,
      ignore: 'If you meant to delete your account, there is nothing more to do.',
    },
    ko: {
      inDays: true,
      subject: '계정 삭제가 예약되었습니다',
      greeting: (name) => `${name}님, 안녕하세요.`,
      lead:
        '계정 삭제를 요청하셨습니다. 모든 기기에서 로그아웃되었고, 완전히 삭제될 때까지 다른 사람에게 보이지 ' +
        '않습니다. 마음이 바뀌셨다면 아래 링크를 열어 계정을 유지하세요.',
      action: '계정 유지하기',
      expiry: (duration) =>
        `계정과 모든 데이터는 ${duration} 후에 삭제됩니다. 그때까지 링크는 한 번만 사용할 수 있습니다.`,
      ignore: '계정 삭제를 원하셨다면 더 하실 일은 없습니다.',
    },
  },
  ...GUARDIAN_WORDING,
};

/** The mail of this kind in this language, as plain text and as HTML (every inserted value escaped). */
export function renderMail(kind: MailKind, locale: Locale, values: MailValues): MailContent {
  const wording = WORDING[kind][locale];
  const items = values.items ?? [];
  const lifetime = wording.inDays ? inDays(values.validForMs, locale) : validFor(values.validForMs, locale);
  const expiry = wording.expiry(lifetime);
  const text = [
    wording.greeting(values.username),
    '',
    wording.lead,
    ...(items.length > 0 ? ['', ...items.map((item) => `- ${item}`)] : []),
    '',
    values.link,
    '',
    expiry,
    wording.ignore,
    '',
  ].join('\n');
  const link = escapeHtml(values.link);
  const html = `<!doctype html>
<html lang="${locale}">
<head><meta charset="utf-8"><title>${escapeHtml(wording.subject)}</title></head>
<body>
<p>${escapeHtml(wording.greeting(values.username))}</p>
<p>${escapeHtml(wording.lead)}</p>
${items.length > 0 ? `<ul>${items.map((item) => `<li>${escapeHtml(item)}</li>`).join('')}</ul>\n` : ''}<p><a href="${link}">${escapeHtml(wording.action)}</a></p>
<p>${link}</p>
<p>${escapeHtml(expiry)}<br>${escapeHtml(wording.ignore)}</p>
</body>
</html>
`;
  return { subject: wording.subject, text, html };
}
