import type { Locale } from '../validation/messages.js';

/** What the code message is for: signing in, or proving a number added to the profile. */
export type CodeSmsPurpose = 'login' | 'verify_phone';

/** An SMS holds 90 bytes (EUC-KR: a Korean character is two, ASCII one); past that it is billed as an LMS. */
export const SMS_MAX_BYTES = 90;

/** A text's size as an SMS counts it. */
export function smsBytes(text: string): number {
  let bytes = 0;
  for (const char of text) bytes += char.charCodeAt(0) < 0x80 ? 1 : 2;
  return bytes;
}

const WORDING: Record<Locale, Record<CodeSmsPurpose, (code: string) => string>> = {
  ko: {
    login: (code) => `로그인 인증번호 ${code} (10분간 유효)`,
    verify_phone: (code) => `휴대폰 인증번호 ${code} (10분간 유효)`,
  },
  en: {
    login: (code) => `Sign-in code ${code} (valid 10 min)`,
    verify_phone: (code) => `Phone code ${code} (valid 10 min)`,
  },
};

/**
 * The code's SMS in the reader's language: `[service] …code…`. The service's name is shortened as needed so
 * the whole stays one SMS (at most 45 Korean characters), never an LMS billed at three times the price.
 */
export function renderCodeSms(
  locale: Locale,
  service: string,
  purpose: CodeSmsPurpose,
  code: string,
): string {
  const body = WORDING[locale][purpose](code);
  let name = service;
  while (name.length > 0 && smsBytes(`[${name}] ${body}`) > SMS_MAX_BYTES) name = name.slice(0, -1);
  return name.length > 0 ? `[${name}] ${body}` : body;
}
