import { consoleAnswerText } from '../console/answers.js';
import { api } from '../lib/api.js';
import { clearMessages, onSubmit, showValidationErrors } from '../lib/form.js';
import { t } from '../lib/i18n.js';
import { tokenFromUrl } from '../lib/link-token.js';
import { offerPasskeys, passkeyFailure } from '../lib/passkey-support.js';
import { revealButtons } from '../lib/password-field.js';
import { startRegistration } from '../vendor/simplewebauthn/index.js';

/**
 * Staff enrollment from the one-time link: a password and one second factor, a passkey or an authenticator
 * app (its key and a code), sent together (docs/console.md).
 */
const form = document.getElementById('console-enroll') as HTMLFormElement;
const pageError = document.getElementById('form-error') as HTMLElement;
const totpPart = document.getElementById('enroll-totp') as HTMLElement;
const token = tokenFromUrl();
revealButtons();
offerPasskeys();

const factor = () => (form.elements.namedItem('factor') as RadioNodeList).value;
form.addEventListener('change', () => {
  totpPart.hidden = factor() !== 'totp';
});

type CreationOptions = Parameters<typeof startRegistration>[0]['optionsJSON'];

/** The passkey's enrollment: options for this link, the browser's ceremony, then the password and the passkey. */
async function enrollPasskey(password: FormDataEntryValue | undefined) {
  const options = await api<{ options: CreationOptions; challenge_id: string }>(
    '/enrollment/passkey/options',
    {
      method: 'POST',
      body: { token },
    },
  );
  if (options.status !== 200) return options;
  let response: Awaited<ReturnType<typeof startRegistration>>;
  try {
    response = await startRegistration({ optionsJSON: options.body.data.options });
  } catch (error) {
    return passkeyFailure(error, t('console.passkey_cancelled'));
  }
  const body = { token, password, challenge_id: options.body.data.challenge_id, response };
  return api('/enrollment/passkey', { method: 'POST', body });
}

interface Enrollment {
  email: string;
  role: string;
  totp_secret: string;
  otpauth_url: string;
}

async function start(): Promise<void> {
  if (!token) {
    pageError.textContent = t('error.no_token');
    return;
  }
  const answer = await api<Enrollment>(`/enrollment?token=${encodeURIComponent(token)}`);
  if (answer.status !== 200) {
    pageError.textContent = consoleAnswerText(answer);
    return;
  }
  const view = answer.body.data;
  (document.getElementById('enroll-who') as HTMLElement).textContent = t('console.enroll.who')
    .replace('{email}', view.email)
    .replace('{role}', view.role);
  // Grouped by four, as authenticator apps show keys typed in by hand.
  (document.getElementById('enroll-secret') as HTMLElement).textContent = view.totp_secret
    .replace(/(.{4})/g, '$1 ')
    .trim();
  (document.getElementById('enroll-app') as HTMLAnchorElement).href = view.otpauth_url;
  form.hidden = false;
  (form.elements.namedItem('password') as HTMLInputElement).focus();
}

onSubmit(form, async () => {
  clearMessages(form);
  pageError.textContent = '';
  const values = Object.fromEntries(new FormData(form));
  const answer =
    factor() === 'passkey'
      ? await enrollPasskey(values.password)
      : await api('/enrollment', {
          method: 'POST',
          body: { token, password: values.password, code: values.code },
        });
  if (typeof answer === 'string') {
    pageError.textContent = answer;
    return;
  }
  if (answer.status === 422) return showValidationErrors(form, answer.body.data);
  if (answer.status !== 200) {
    pageError.textContent = consoleAnswerText(answer);
    return;
  }
  form.hidden = true;
  const done = document.getElementById('enroll-done') as HTMLElement;
  done.hidden = false;
  done.querySelector('a')?.focus();
});

start().catch(() => {
  pageError.textContent = t('error.network');
});
