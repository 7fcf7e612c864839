import { api, startSession } from '../lib/api.js';
import {
  clearMessages,
  errorText,
  onSubmit,
  setError,
  setStatus,
  showField,
  showValidationErrors,
} from '../lib/form.js';
import { t } from '../lib/i18n.js';
import { tokenFromUrl } from '../lib/link-token.js';

const form = document.getElementById('reset') as HTMLFormElement;
const token = tokenFromUrl();
if (!token) showField('token', [t('error.no_token')], true);

onSubmit(form, async () => {
  clearMessages(form);
  if (!token) return showField('token', [t('error.no_token')], true);
  setStatus(form, t('status.working'));
  const password = (document.getElementById('password') as HTMLInputElement).value;
  const answer = await api<{ user?: { api_token?: string } }>('/auth/password/reset', {
    method: 'POST',
    body: { token, password },
  });
  setStatus(form, '');
  if (answer.status === 422) return showValidationErrors(form, answer.body.data);
  const apiToken = answer.body.data.user?.api_token;
  if (answer.status !== 200 || !apiToken) return setError(form, errorText(answer.body));
  // The reset signed out every session and answered like a login: this browser is signed in with the new one.
  if (!(await startSession(apiToken))) return setError(form, t('error.generic'));
  location.assign('/profile');
});
