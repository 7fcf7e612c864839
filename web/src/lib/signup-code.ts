import { api } from './api.js';
import { errorText, setError, setStatus, showField, showValidationErrors } from './form.js';
import { t } from './i18n.js';

/** The sign-up's choice between a password and a code mailed to the address. */
export interface SignUpCode {
  /** Whether the code was asked for: the sign-up then sends it instead of a password. */
  chosen(): boolean;
  /** The code as typed. */
  code(): string;
}

const element = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;

/**
 * "Email me a code instead of a password" (auth/email-code, purpose `register`): once the code is on its way
 * the password field gives way to the code field, until "use a password instead". The answer is the same
 * whether or not an account has the address, so the note says "unless an account uses it already".
 */
export function signUpCode(form: HTMLFormElement): SignUpCode {
  const send = element<HTMLButtonElement>('signup-code-send');
  const resend = element<HTMLButtonElement>('signup-code-resend');
  const usePassword = element<HTMLButtonElement>('signup-use-password');
  const choice = send.closest('p') as HTMLElement;
  const entry = element<HTMLElement>('signup-code-entry');
  const password = element<HTMLInputElement>('password');
  const passwordField = password.closest('.field') as HTMLElement;
  const code = element<HTMLInputElement>('signup_code');
  let chosen = false;

  function choose(on: boolean): void {
    chosen = on;
    entry.hidden = !on;
    choice.hidden = on;
    passwordField.hidden = on;
    password.required = !on;
    code.required = on;
    if (!on) {
      code.value = '';
      showField('signup_code', [], false);
      password.focus();
    }
  }

  async function ask(button: HTMLButtonElement): Promise<void> {
    setError(form, '');
    setStatus(form, '');
    showField('email', [], false);
    const email = element<HTMLInputElement>('email').value.trim();
    const answer = await api('/auth/email-code', { method: 'POST', body: { email, purpose: 'register' } });
    if (answer.status === 422) return showValidationErrors(form, answer.body.data);
    if (answer.status !== 200) return setError(form, errorText(answer));
    choose(true);
    showField('signup_code', [t('signup.code_sent')], false);
    // The send button is gone once the code is chosen: focus goes where the code is typed.
    if (button === send || document.activeElement === document.body) code.focus();
  }

  for (const button of [send, resend]) {
    button.addEventListener('click', () => {
      button.disabled = true;
      ask(button)
        .catch(() => setError(form, t('error.network')))
        .finally(() => {
          button.disabled = false;
        });
    });
  }
  usePassword.addEventListener('click', () => choose(false));

  return { chosen: () => chosen, code: () => code.value.trim() };
}
