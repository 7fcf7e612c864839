import { consoleAnswerText, signInAnswerText } from '../console/answers.js';
import { api } from '../lib/api.js';
import { clearMessages, onSubmit, setError, setStatus, showValidationErrors } from '../lib/form.js';
import { t } from '../lib/i18n.js';
import { offerPasskeys, passkeyFailure } from '../lib/passkey-support.js';
import { revealButtons } from '../lib/password-field.js';
import { startAuthentication } from '../vendor/simplewebauthn/index.js';

/**
 * Staff sign-in: email, password and the second factor in one step, every time (docs/console.md): the
 * authenticator's code (the form's submit), or the passkey (its own button).
 */
const form = document.getElementById('console-login') as HTMLFormElement;
const passkeyButton = document.getElementById('passkey-sign-in') as HTMLButtonElement;
revealButtons();
offerPasskeys();

type RequestOptions = Parameters<typeof startAuthentication>[0]['optionsJSON'];

passkeyButton.addEventListener('click', () => {
  passkeyButton.disabled = true;
  signInWithPasskey()
    .catch(() => setError(form, t('error.network')))
    .finally(() => {
      passkeyButton.disabled = false;
    });
});

async function signInWithPasskey(): Promise<void> {
  clearMessages(form);
  setStatus(form, t('status.working'));
  const values = Object.fromEntries(new FormData(form));
  const options = await api<{ options: RequestOptions; challenge_id: string }>(
    '/auth/login/passkey/options',
    {
      method: 'POST',
      body: {},
    },
  );
  if (options.status !== 200) {
    setStatus(form, '');
    return setError(form, consoleAnswerText(options));
  }
  let response: Awaited<ReturnType<typeof startAuthentication>>;
  try {
    response = await startAuthentication({ optionsJSON: options.body.data.options });
  } catch (error) {
    setStatus(form, '');
    return setError(form, passkeyFailure(error, t('console.passkey_cancelled')));
  }
  const answer = await api('/auth/login/passkey', {
    method: 'POST',
    body: {
      email: values.email,
      password: values.password,
      challenge_id: options.body.data.challenge_id,
      response,
    },
  });
  setStatus(form, '');
  if (answer.status === 422) return showValidationErrors(form, answer.body.data);
  if (answer.status !== 200) return setError(form, signInAnswerText(answer));
  location.assign('/console');
}

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
    return setError(form, signInAnswerText(answer));
  }
  location.assign('/console');
});
