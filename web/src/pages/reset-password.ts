import { fieldMessages } from '../lib/answers.js';
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
import { revealButtons, strengthHint } from '../lib/password-field.js';

const form = document.getElementById('reset') as HTMLFormElement;
const secondFactor = document.getElementById('second-factor') as HTMLFormElement;
const token = tokenFromUrl();
if (!token) showField('token', [t('error.no_token')], true);
revealButtons();
strengthHint('password');

/** The answer of a reset or of its second step: the user and token, or the second factor's challenge. */
type SignInAnswer = Record<string, unknown> & {
  user?: { api_token?: string };
  status?: string;
  challenge?: string;
};

/** The `challenge` of the reset's `second_factor_required` answer: the code step sends it. */
let challenge = '';

async function signIn(apiToken: string, target: HTMLFormElement): Promise<void> {
  // The reset signed out every session and answered like a login: this browser is signed in with the new one.
  if (!(await startSession(apiToken))) return setError(target, t('error.generic'));
  location.assign('/profile');
}

onSubmit(form, async () => {
  clearMessages(form);
  if (!token) return showField('token', [t('error.no_token')], true);
  setStatus(form, t('status.working'));
  const password = (document.getElementById('password') as HTMLInputElement).value;
  const answer = await api<SignInAnswer>('/auth/password/reset', {
    method: 'POST',
    body: { token, password },
  });
  setStatus(form, '');
  const data = answer.body.data;
  // The password is changed; an account with a second factor signs in with its code, as at log-in.
  if (answer.status === 401 && data.status === 'second_factor_required' && data.challenge) {
    challenge = data.challenge;
    form.hidden = true;
    secondFactor.hidden = false;
    document.getElementById('code')?.focus();
    return;
  }
  if (answer.status === 422) {
    if (data.token !== undefined) return showField('token', [t('error.link_used')], true);
    return showValidationErrors(form, data);
  }
  const apiToken = data.user?.api_token;
  if (answer.status !== 200 || !apiToken) return setError(form, errorText(answer));
  await signIn(apiToken, form);
});

/** A six-digit entry is an authenticator code; anything else is tried as a recovery code. */
onSubmit(secondFactor, async () => {
  clearMessages(secondFactor);
  const entry = (document.getElementById('code') as HTMLInputElement).value.trim();
  const proof = /^\d{6}$/.test(entry) ? { code: entry } : { recovery_code: entry };
  const answer = await api<SignInAnswer>('/auth/login/second-factor', {
    method: 'POST',
    body: { challenge, ...proof },
  });
  const data = answer.body.data;
  if (answer.status === 422) {
    const messages = (['code', 'recovery_code', 'challenge'] as const).flatMap((name) =>
      data[name] === undefined ? [] : fieldMessages(data[name], name),
    );
    return showField('code', messages, true);
  }
  // The password is already changed: a dead challenge is signed in from the log-in page.
  if (answer.status === 401) {
    setError(secondFactor, t('login.second_factor_expired'));
    return;
  }
  const apiToken = data.user?.api_token;
  if (answer.status !== 200 || !apiToken) return setError(secondFactor, errorText(answer));
  await signIn(apiToken, secondFactor);
});
