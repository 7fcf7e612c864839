import { answerText, type Refusal } from '../lib/answers.js';
import { t } from '../lib/i18n.js';

/** The console's own refusals in the page's words (by `data.status`), else the user pages' sentences. */
export function consoleAnswerText(answer: Refusal): string {
  const data = (answer.body.data ?? {}) as Record<string, unknown>;
  switch (data.status) {
    case 'account_locked':
      return t('console.error.locked');
    case 'csrf_token_invalid':
      return t('console.error.csrf');
    case 'network_refused':
      return t('console.error.network');
    case 'enrollment_used':
      return t('console.error.link_used');
    case 'enrollment_expired':
      return t('console.error.link_expired');
    default:
      return answerText(answer);
  }
}
