import { when } from './dates.js';
import { pageSentences } from './field-errors.js';
import { t } from './i18n.js';

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
      return data.status === 'guardian_consent_required'
        ? t('error.guardian_consent_required')
        : t('error.forbidden');
    case 404:
      return t('error.not_found');
    case 409:
      if (data.status === 'deletion_scheduled' && typeof data.scheduled_for === 'string')
        return t('error.deletion_scheduled').replace('{date}', when(data.scheduled_for));
      if (data.status === 'phone_in_use') return t('error.phone_in_use');
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
      if (data.status === 'sms_not_configured') return t('error.sms_not_configured');
      return data.status === 'second_factor_not_configured'
        ? t('error.second_factor_unavailable')
        : t('error.unavailable');
    default:
      return answer.status >= 500 ? t('error.server') : t('error.generic');
  }
}

/** A 422's messages for one field (named as the API names it), in the page's own words. */
export function fieldMessages(value: unknown, field: string): string[] {
  return pageSentences(field, value);
}
