import { when } from './dates.js';
import { locale, t } from './i18n.js';

/** What the pages read of an answer to tell one refusal from another (never its English error_message). */
export interface Refusal {
  status: number;
  body: { meta?: { error_type?: string }; data?: unknown };
}

const dataOf = (answer: Refusal): Record<string, unknown> =>
  typeof answer.body.data === 'object' && answer.body.data !== null
    ? (answer.body.data as Record<string, unknown>)
    : {};

/** "30 seconds", "2 minutes": how long a 429 asks to wait, in the page's language. */
function waitText(seconds: unknown): string | undefined {
  if (typeof seconds !== 'number' || !Number.isFinite(seconds) || seconds <= 0) return undefined;
  if (seconds < 90) return t('time.seconds').replace('{count}', String(Math.ceil(seconds)));
  return t('time.minutes').replace('{count}', String(Math.ceil(seconds / 60)));
}

/**
 * The page's own sentence for a refused request (anything but a 422, whose field messages the API writes
 * in the page's language): chosen by the status and `data.status`, the interface's stable words. The
 * API's `meta.error_message` is the interface's English for the apps, so a page never shows it.
 */
export function answerText(answer: Refusal): string {
  const data = dataOf(answer);
  switch (answer.status) {
    case 401:
      if (data.status === 'authentication_failed') return t('error.credentials');
      if (data.status === 'account_disabled') return t('error.account_disabled');
      if (data.status === 'not_registered') return t('error.not_registered');
      return t('error.signed_out');
    case 403:
      return t('error.forbidden');
    case 404:
      return t('error.not_found');
    case 409:
      if (data.status === 'deletion_scheduled' && typeof data.scheduled_for === 'string')
        return t('error.deletion_scheduled').replace('{date}', when(data.scheduled_for));
      return t('error.generic');
    case 413:
      return t('error.too_large');
    case 429: {
      const wait = waitText(data.retry_after);
      return wait ? t('error.too_many').replace('{wait}', wait) : t('error.too_many_soon');
    }
    case 400:
    case 408:
    case 415:
      return t('error.bad_request');
    case 502:
      return t('error.provider_unavailable');
    case 503:
      return data.status === 'second_factor_not_configured'
        ? t('error.second_factor_unavailable')
        : t('error.unavailable');
    default:
      return answer.status >= 500 ? t('error.server') : t('error.generic');
  }
}

/** 받침 of the syllable `char` (undefined for a character that is not a Hangul syllable or a digit). */
function hasFinalConsonant(char: string): { final: boolean; rieul: boolean } | undefined {
  const code = char.charCodeAt(0) - 0xac00;
  if (code >= 0 && code <= 11171) return { final: code % 28 !== 0, rieul: code % 28 === 8 };
  // Digits are read as Sino-Korean numbers: 영 일 이 삼 사 오 육 칠 팔 구.
  const digit = '0123456789'.indexOf(char);
  if (digit >= 0) return { final: '0136780'.includes(char), rieul: '178'.includes(char) };
  return undefined;
}

/** A placeholder pair and the forms it stands for: after a final consonant, after none. */
const PLACEHOLDERS: ReadonlyArray<[string, string, string]> = [
  ['은(는)', '은', '는'],
  ['이(가)', '이', '가'],
  ['을(를)', '을', '를'],
  ['과(와)', '과', '와'],
  ['(으)로', '으로', '로'],
];

/**
 * A Korean message with each `은(는)`-style placeholder replaced by the particle its word takes. The API
 * writes its field messages with the right particles; a message from an older server may still carry the
 * placeholders, which read as machine-made, so the page settles them the same way.
 */
export function settleParticles(text: string): string {
  let settled = text;
  for (const [placeholder, afterFinal, afterVowel] of PLACEHOLDERS) {
    settled = settled.replace(new RegExp(`(.)${placeholder.replace(/[()]/g, '\\$&')}`, 'g'), (_, before) => {
      const sound = hasFinalConsonant(before as string);
      if (!sound) return `${before}${afterFinal}`;
      // (으)로 takes 로 after ㄹ as after a vowel.
      const final = placeholder === '(으)로' ? sound.final && !sound.rieul : sound.final;
      return `${before}${final ? afterFinal : afterVowel}`;
    });
  }
  return settled;
}

/** A 422's messages for one field, as the page shows them. */
export function fieldMessages(value: unknown): string[] {
  const messages = Array.isArray(value) ? value.map(String) : [String(value)];
  return locale === 'ko' ? messages.map(settleParticles) : messages;
}
