import { api } from '../lib/api.js';
import {
  clearMessages,
  errorText,
  onSubmit,
  setError,
  setStatus,
  showValidationErrors,
} from '../lib/form.js';
import { t } from '../lib/i18n.js';

const form = document.getElementById('forgot') as HTMLFormElement;

onSubmit(form, async () => {
  clearMessages(form);
  setStatus(form, t('status.working'));
  const email = (document.getElementById('email') as HTMLInputElement).value;
  const answer = await api('/auth/password/forgot', { method: 'POST', body: { email } });
  setStatus(form, '');
  // A malformed address is a 422 about the input, never about an account; 429 is the API's own message.
  if (answer.status === 422) return showValidationErrors(form, answer.body.data);
  if (answer.status !== 200) return setError(form, errorText(answer));
  // The same words for every address: the API never says whether an account has it, nor may the page.
  setStatus(form, t('status.reset_sent'));
});
