import { fieldMessages } from '../lib/answers.js';
import { type ApiAnswer, api, startSession } from '../lib/api.js';
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
import { offerPasskeys, passkeyFailure } from '../lib/passkey-support.js';
import { revealButtons } from '../lib/password-field.js';
import { phoneLogin } from '../lib/phone-login.js';
import { startAuthentication } from '../vendor/simplewebauthn/index.js';

const form = document.getElementById('login') as HTMLFormElement;
const passkeyBox = document.getElementById('passkey-login') as HTMLElement;
const passkeyButton = document.getElementById('passkey-login-button') as HTMLButtonElement;
const secondFactor = document.getElementById('second-factor') as HTMLFormElement;
const startOver = document.getElementById('start-over') as HTMLButtonElement;
const codeForm = document.getElementById('email-code') as HTMLFormElement;
const linkForm = document.getElementById('email-link') as HTMLFormElement;
/** Offered only where codes can be texted (src/web/page-account.ts). */
const phoneForm = document.getElementById('phone-login') as HTMLFormElement | null;

revealButtons();
offerPasskeys();

/** A login's answer: the user and token, or (a 401) the second factor's challenge; a 422's field messages. */
type LoginAnswer = Record<string, unknown> & {
  user?: { api_token?: string };
  status?: string;
  challenge?: string;
};

/** The `challenge` of the last `second_factor_required` answer: the second step sends it with the code. */
let challenge = '';

/** A login's answer: signed in, the second-factor step, or an error on `target`. */
async function finish(answer: ApiAnswer<LoginAnswer>, target: HTMLFormElement): Promise<void> {
  const data = answer.body.data;
  if (answer.status === 401 && data.status === 'second_factor_required' && data.challenge) {
    challenge = data.challenge;
    form.hidden = true;
    passkeyBox.hidden = true;
    codeForm.hidden = true;
    linkForm.hidden = true;
    if (phoneForm) phoneForm.hidden = true;
    secondFactor.hidden = false;
    document.getElementById('code')?.focus();
    return;
  }
  const token = data.user?.api_token;
  if (answer.status !== 200 || !token) return setError(target, errorText(answer));
  if (!(await startSession(token))) return setError(target, t('error.generic'));
  location.assign('/profile');
}

onSubmit(form, async () => {
  clearMessages(form);
  setStatus(form, t('status.working'));
  const values = Object.fromEntries(new FormData(form));
  const answer = await api<LoginAnswer>('/auth/login/email', {
    method: 'POST',
    body: { email: values.email, password: values.password },
  });
  setStatus(form, '');
  if (answer.status === 422) return showValidationErrors(form, answer.body.data);
  await finish(answer, form);
});

// The box is not a form, but the shared helpers only look for its status and error lines.
const passkeyLines = passkeyBox as unknown as HTMLFormElement;
passkeyButton.addEventListener('click', () => {
  passkeyButton.disabled = true;
  signInWithPasskey()
    .catch(() => setError(passkeyLines, t('error.network')))
    .finally(() => {
      passkeyButton.disabled = false;
    });
});

/** Discoverable credentials: no email asked, the authenticator offers the account's passkey. */
async function signInWithPasskey(): Promise<void> {
  setError(passkeyLines, '');
  setStatus(passkeyLines, t('status.working'));
  const options = await api<{
    options: Parameters<typeof startAuthentication>[0]['optionsJSON'];
    challenge_id: string;
  }>('/auth/login/passkey/options', { method: 'POST', body: {} });
  if (options.status !== 200) {
    setStatus(passkeyLines, '');
    return setError(passkeyLines, errorText(options));
  }
  let response: Awaited<ReturnType<typeof startAuthentication>>;
  try {
    response = await startAuthentication({ optionsJSON: options.body.data.options });
  } catch (error) {
    setStatus(passkeyLines, '');
    return setError(passkeyLines, passkeyFailure(error, t('login.passkey_cancelled')));
  }
  const answer = await api<LoginAnswer>('/auth/login/passkey', {
    method: 'POST',
    body: { challenge_id: options.body.data.challenge_id, response },
  });
  setStatus(passkeyLines, '');
  if (answer.status === 422) return setError(passkeyLines, t('login.passkey_cancelled'));
  await finish(answer, passkeyLines);
}

/** A six-digit entry is an authenticator code; anything else is tried as a recovery code. */
onSubmit(secondFactor, async () => {
  clearMessages(secondFactor);
  const entry = (document.getElementById('code') as HTMLInputElement).value.trim();
  const proof = /^\d{6}$/.test(entry) ? { code: entry } : { recovery_code: entry };
  const answer = await api<LoginAnswer>('/auth/login/second-factor', {
    method: 'POST',
    body: { challenge, ...proof },
  });
  if (answer.status === 422) {
    const data = answer.body.data as Record<string, unknown>;
    const messages = (['code', 'recovery_code', 'challenge'] as const).flatMap((name) =>
      data[name] === undefined ? [] : fieldMessages(data[name], name),
    );
    return showField('code', messages, true);
  }
  // A used, expired or dead challenge: only a new login makes a new one.
  if (answer.status === 401) {
    setError(secondFactor, t('login.second_factor_expired'));
    startOver.hidden = false;
    return;
  }
  await finish(answer, secondFactor);
});

startOver.addEventListener('click', () => location.reload());

if (phoneForm) phoneLogin(finish);

/** A code by email: asked for the address typed above (the answer is the same for every address). */
const codeEntry = document.getElementById('email-code-entry') as HTMLElement;
const sendCode = document.getElementById('email-code-send') as HTMLButtonElement;
const typedEmail = () => (document.getElementById('email') as HTMLInputElement).value.trim();

sendCode.addEventListener('click', () => {
  sendCode.disabled = true;
  askForCode()
    .catch(() => setError(codeForm, t('error.network')))
    .finally(() => {
      sendCode.disabled = false;
    });
});

async function askForCode(): Promise<void> {
  clearMessages(form);
  clearMessages(codeForm);
  const answer = await api('/auth/email-code', {
    method: 'POST',
    body: { email: typedEmail(), purpose: 'login' },
  });
  if (answer.status === 422) return showValidationErrors(form, answer.body.data);
  if (answer.status !== 200) return setError(codeForm, errorText(answer));
  codeEntry.hidden = false;
  setStatus(codeForm, t('login.email_code_sent'));
  document.getElementById('email_code')?.focus();
}

onSubmit(codeForm, async () => {
  clearMessages(codeForm);
  const code = (document.getElementById('email_code') as HTMLInputElement).value.trim();
  const answer = await api<LoginAnswer>('/auth/email-code/verify', {
    method: 'POST',
    body: { email: typedEmail(), code },
  });
  if (answer.status === 422) {
    const data = answer.body.data as Record<string, unknown>;
    if (data.email !== undefined) return showValidationErrors(form, data);
    return showField('email_code', fieldMessages(data.code, 'code'), true);
  }
  await finish(answer, codeForm);
});

/** The mail's link: one button (a mail scanner that opens the link must not use it up). */
const linkToken = tokenFromUrl();
if (linkToken !== undefined) {
  form.hidden = true;
  passkeyBox.hidden = true;
  codeForm.hidden = true;
  if (phoneForm) phoneForm.hidden = true;
  linkForm.hidden = false;
}
onSubmit(linkForm, async () => {
  clearMessages(linkForm);
  const answer = await api<LoginAnswer>('/auth/email-code/verify', {
    method: 'POST',
    body: { token: linkToken },
  });
  await finish(answer, linkForm);
});
