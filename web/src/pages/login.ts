import { api, startSession } from '../lib/api.js';
import {
  clearMessages,
  errorText,
  onSubmit,
  setError,
  setStatus,
  showValidationErrors,
} from '../lib/form.js';
import { t } from '../lib/i18n.js';

const form = document.getElementById('login') as HTMLFormElement;

onSubmit(form, async () => {
  clearMessages(form);
  setStatus(form, t('status.working'));
  const values = Object.fromEntries(new FormData(form));
  const answer = await api<{ user?: { api_token?: string } }>('/auth/login/email', {
    method: 'POST',
    body: { email: values.email, password: values.password },
  });
  setStatus(form, '');
  if (answer.status === 422) return showValidationErrors(form, answer.body.data);
  const token = answer.body.data.user?.api_token;
  if (answer.status !== 200 || !token) return setError(form, errorText(answer.body));
  if (!(await startSession(token))) return setError(form, t('error.generic'));
  location.assign('/profile');
});
