import { consoleAnswerText } from '../console/answers.js';
import { api } from '../lib/api.js';
import { clearMessages, onSubmit, setError, setStatus, showValidationErrors } from '../lib/form.js';
import { t } from '../lib/i18n.js';
import { revealButtons } from '../lib/password-field.js';

/** Staff sign-in: email, password and the authenticator's code in one step, every time (docs/console.md). */
const form = document.getElementById('console-login') as HTMLFormElement;
revealButtons();

onSubmit(form, async () => {
  clearMessages(form);
  setStatus(form, t('status.working'));
  const values = Object.fromEntries(new FormData(form));
  const answer = await api('/auth/login', {
    method: 'POST',
    body: { email: values.email, password: values.password, code: values.code },
  });
  setStatus(form, '');
  if (answer.status === 422) return showValidationErrors(form, answer.body.data);
  if (answer.status !== 200) {
    // A wrong code is as likely as a wrong password, and the answer never says which: both are typed again.
    (form.elements.namedItem('code') as HTMLInputElement).value = '';
    return setError(form, consoleAnswerText(answer));
  }
  location.assign('/console');
});
