import { answerText, type Refusal } from '../lib/answers.js';
import { t } from '../lib/i18n.js';

/** The console's own refusals in the page's words (by `data.status`), else the user pages' sentences. */
export function consoleAnswerText(answer: Refusal): string {
  const data = (answer.body.data ?? {}) as Record<string, unknown>;
  switch (data.status) {
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

/**
 * A refused sign-in: a wrong email, password or factor and a locked account are one answer (the server's
 * words would tell who is staff), so the page names the lockout beside the wrong try.
 */
export function signInAnswerText(answer: Refusal): string {
  const data = (answer.body.data ?? {}) as Record<string, unknown>;
  return data.status === 'authentication_failed' ? t('console.error.sign_in') : consoleAnswerText(answer);
}
