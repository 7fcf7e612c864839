import { fieldMessages } from '../lib/answers.js';
import { api } from '../lib/api.js';
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
import { formatAsTyped, formatPhone } from '../lib/phone-field.js';
import { askForProof, type Reauth, withoutProof } from './reauth.js';
import { onUser, showUser, toLogin, type User } from './user.js';

const element = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;

/**
 * The mobile number: user/phone (re-authenticated) texts a code to a new number, which is then the account's,
 * unverified, until user/phone/verify takes the code; user/phone/remove (re-authenticated) drops it. A
 * verified number is changed the same way: the new one takes its place at once, and signs in once verified.
 */
export function phoneSection(reauth: Reauth): void {
  const state = element<HTMLElement>('phone-state');
  const addForm = element<HTMLFormElement>('phone-add');
  const verifyForm = element<HTMLFormElement>('phone-verify');
  const removeForm = element<HTMLFormElement>('phone-remove');
  const phone = element<HTMLInputElement>('phone');
  const code = element<HTMLInputElement>('phone_code');
  const phoneLabel = addForm.querySelector('label[for="phone"]') as HTMLLabelElement;
  formatAsTyped(phone);

  onUser((user) => {
    const number = user.phone ?? null;
    const verified = user.phone_verified === true;
    state.textContent =
      number === null
        ? t('phone.none')
        : `${t('phone.current').replace('{phone}', formatPhone(number))} (${t(verified ? 'phone.verified' : 'phone.unverified')})`;
    state.dataset.verified = String(number !== null && verified);
    // With a verified number, the field is for the one that replaces it.
    phoneLabel.textContent = t(number !== null && verified ? 'field.new_phone' : 'field.phone');
    verifyForm.hidden = number === null || verified;
    removeForm.hidden = number === null;
  });

  /** Reads the account again: the number the API now has, and whether it is verified. */
  async function reload(): Promise<void> {
    const answer = await api<{ user: User }>('/user/get');
    if (answer.status === 200) showUser(answer.body.data.user);
  }

  onSubmit(addForm, async () => {
    clearMessages(addForm);
    const proof = await reauth.proof();
    // Confirming in the panel then sends this number (it is still typed).
    const again = () => addForm.requestSubmit();
    if (!proof) {
      reauth.resume(again);
      return askForProof(addForm);
    }
    const answer = await api<{ status: string; phone: string }>('/user/phone', {
      method: 'POST',
      body: { phone: phone.value.trim(), ...proof },
    });
    if (answer.status === 401) return toLogin();
    if (answer.status === 422) {
      const data = answer.body.data as Record<string, unknown>;
      const aboutProof = reauth.refused(data, { retry: again });
      if (aboutProof) return setError(addForm, aboutProof);
      return showValidationErrors(addForm, withoutProof(data));
    }
    if (answer.status !== 200) return setError(addForm, errorText(answer));
    phone.value = '';
    await reload();
    // The code's form (shown now that a number waits) says where the code went, and has the focus.
    verifyForm.hidden = false;
    clearMessages(verifyForm);
    setStatus(verifyForm, t('phone.sent').replace('{phone}', formatPhone(answer.body.data.phone)));
    code.focus();
  });

  onSubmit(verifyForm, async () => {
    clearMessages(verifyForm);
    const answer = await api<{ user: User }>('/user/phone/verify', {
      method: 'POST',
      body: { code: code.value.trim() },
    });
    if (answer.status === 401) return toLogin();
    if (answer.status === 422) {
      const data = answer.body.data as Record<string, unknown>;
      const messages = fieldMessages(data.code ?? Object.values(data).flat(), 'phone_code');
      showField('phone_code', messages, true);
      return code.focus();
    }
    if (answer.status !== 200) return setError(verifyForm, errorText(answer));
    code.value = '';
    showUser(answer.body.data.user);
    setStatus(addForm, t('status.phone_verified'));
  });

  onSubmit(removeForm, async () => {
    clearMessages(removeForm);
    const proof = await reauth.proof();
    const again = () => removeForm.requestSubmit();
    if (!proof) {
      reauth.resume(again);
      return askForProof(removeForm);
    }
    const answer = await api<{ user: User }>('/user/phone/remove', { method: 'POST', body: { ...proof } });
    if (answer.status === 401) return toLogin();
    if (answer.status === 422) {
      const data = answer.body.data as Record<string, unknown>;
      return setError(removeForm, reauth.refused(data, { retry: again }) ?? errorText(answer));
    }
    if (answer.status !== 200) return setError(removeForm, errorText(answer));
    showUser(answer.body.data.user);
    clearMessages(verifyForm);
    setStatus(addForm, t('status.phone_removed'));
  });
}
