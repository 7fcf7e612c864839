import { fieldMessages } from './answers.js';
import { type ApiAnswer, api } from './api.js';
import { clearMessages, errorText, onSubmit, setError, setStatus, showField } from './form.js';
import { t } from './i18n.js';
import { formatAsTyped } from './phone-field.js';

/** A sign-in's answer: the user and token, or (a 401) the second factor's challenge. */
export type SignInAnswer = Record<string, unknown> & {
  user?: { api_token?: string };
  status?: string;
  challenge?: string;
};

/** What the log-in page does with a sign-in's answer (signed in, the second factor, or an error). */
export type Finish = (answer: ApiAnswer<SignInAnswer>, target: HTMLFormElement) => Promise<void>;

const element = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;

/** A 422 of the phone routes, on the page's two fields (`code` is the text message's code here). */
function showRefusal(data: Record<string, unknown>, form: HTMLFormElement): void {
  const phone = data.phone === undefined ? [] : fieldMessages(data.phone, 'phone');
  const code = data.code === undefined ? [] : fieldMessages(data.code, 'phone_code');
  showField('phone', phone, phone.length > 0);
  showField('phone_code', code, code.length > 0);
  if (phone.length === 0 && code.length === 0) setError(form, t('error.generic'));
  element(phone.length > 0 ? 'phone' : 'phone_code').focus();
}

/**
 * The log-in by a mobile number: auth/phone-code texts a code to the number (the same answer whether or not
 * an account has it), auth/phone-code/verify signs in with it as the email login does. Enter in the number's
 * field asks for the code; once it is asked, the form's submit sends the code.
 */
export function phoneLogin(finish: Finish): void {
  const form = element<HTMLFormElement>('phone-login');
  const open = element<HTMLButtonElement>('phone-login-open');
  const fields = element<HTMLElement>('phone-login-fields');
  const send = element<HTMLButtonElement>('phone-code-send');
  const entry = element<HTMLElement>('phone-code-entry');
  const phone = element<HTMLInputElement>('phone');
  const code = element<HTMLInputElement>('phone_code');
  formatAsTyped(phone);

  open.addEventListener('click', () => {
    const opening = fields.hidden;
    fields.hidden = !opening;
    open.setAttribute('aria-expanded', String(opening));
    if (opening) phone.focus();
  });

  async function askForCode(): Promise<void> {
    clearMessages(form);
    const answer = await api('/auth/phone-code', { method: 'POST', body: { phone: phone.value.trim() } });
    if (answer.status === 422) return showRefusal(answer.body.data, form);
    if (answer.status !== 200) return setError(form, errorText(answer));
    entry.hidden = false;
    setStatus(form, t('login.phone_sent'));
    code.focus();
  }

  send.addEventListener('click', () => {
    send.disabled = true;
    askForCode()
      .catch(() => setError(form, t('error.network')))
      .finally(() => {
        send.disabled = false;
      });
  });

  onSubmit(form, async () => {
    if (entry.hidden) return askForCode();
    clearMessages(form);
    const answer = await api<SignInAnswer>('/auth/phone-code/verify', {
      method: 'POST',
      body: { phone: phone.value.trim(), code: code.value.trim() },
    });
    if (answer.status === 422) return showRefusal(answer.body.data, form);
    // A wrong, used or expired code: said on the code's field, not as "wrong email or password".
    if (answer.status === 401 && answer.body.data.status === 'authentication_failed') {
      showField('phone_code', [t('login.phone_code_wrong')], true);
      return code.focus();
    }
    await finish(answer, form);
  });
}
