import type { Locale } from '../validation/messages.js';
import { escapeHtml, type MailContent } from './templates.js';

/** The mail kind of a one-time code (capped per address: a stranger can make it go, mail/address-cap.ts). */
export const EMAIL_CODE_KIND = 'email_code';

/** What a code mail carries. */
export interface CodeMailValues {
  code: string;
  /** The link with the same proof as the code. */
  link: string;
  validForMs: number;
  purpose: 'login' | 'register';
}

const WORDING = {
  en: {
    subject: (code: string) => `${code} is your code`,
    login: 'Enter this code to sign in, or open the link below on this device:',
    register: 'Enter this code to create your account, or open the link below on this device:',
    action: { login: 'Sign in', register: 'Create my account' },
    expiry: (minutes: number) => `The code and the link work once, for ${minutes} minutes.`,
    ignore: 'If you did not ask for this, ignore this mail: nobody can use the code without your mailbox.',
  },
  ko: {
    subject: (code: string) => `인증 코드: ${code}`,
    login: '아래 코드를 입력하거나, 이 기기에서 링크를 열어 로그인하세요:',
    register: '아래 코드를 입력하거나, 이 기기에서 링크를 열어 계정을 만드세요:',
    action: { login: '로그인', register: '계정 만들기' },
    expiry: (minutes: number) => `코드와 링크는 ${minutes}분 동안 한 번만 사용할 수 있습니다.`,
    ignore: '직접 요청하지 않으셨다면 이 메일을 무시하세요. 메일함 없이는 아무도 코드를 쓸 수 없습니다.',
  },
} as const;

/** The code mail in the reader's language, as plain text and as HTML (the link escaped). */
export function renderCodeMail(locale: Locale, values: CodeMailValues): MailContent {
  const wording = WORDING[locale];
  const lead = wording[values.purpose];
  const expiry = wording.expiry(Math.round(values.validForMs / 60_000));
  const subject = wording.subject(values.code);
  const text = [lead, '', values.code, '', values.link, '', expiry, wording.ignore, ''].join('\n');
  const link = escapeHtml(values.link);
  const html = `<!doctype html>
<html lang="${locale}">
<head><meta charset="utf-8"><title>${escapeHtml(subject)}</title></head>
<body>
<p>${escapeHtml(lead)}</p>
<p style="font-size:2em;letter-spacing:0.2em"><strong>${values.code}</strong></p>
<p><a href="${link}">${escapeHtml(wording.action[values.purpose])}</a></p>
<p>${link}</p>
<p>${escapeHtml(expiry)}<br>${escapeHtml(wording.ignore)}</p>
</body>
</html>
`;
  return { subject, text, html };
}
