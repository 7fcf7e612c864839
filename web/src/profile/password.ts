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
import { strengthHint } from '../lib/password-field.js';
import { askForProof, type Reauth } from './reauth.js';
import { onUser, showUser, toLogin, type User } from './user.js';

const input = (id: string) => document.getElementById(id) as HTMLInputElement;

/**
 * The password change (user/update's `password`, re-authenticated): typed twice, with the strength hint;
 * the API signs every other session out. An account without a password sets its first one here.
 */
export function passwordSection(reauth: Reauth): void {
  const form = document.getElementById('password-change') as HTMLFormElement;
  let user: User | undefined;
  strengthHint('new_password', () => (user ? { email: user.email, username: user.username } : {}));

  onUser((current) => {
    user = current;
    input('password-username').value = current.email;
    (document.getElementById('password-lead') as HTMLElement).textContent = t(
      current.has_password ? 'password.lead' : 'password.none',
    );
  });

  onSubmit(form, async () => {
    clearMessages(form);
    const password = input('new_password').value;
    if (password !== input('new_password_again').value) {
      showField('new_password_again', [t('error.passwords_differ')], true);
      return input('new_password_again').focus();
    }
    const proof = await reauth.proof();
    // Confirming in the panel then sends this change (the new password is still typed).
    const again = () => form.requestSubmit();
    if (!proof) {
      reauth.resume(again);
      return askForProof(form);
    }
    const answer = await api<{ user: User }>('/user/update', {
      method: 'POST',
      body: { password, ...proof },
    });
    if (answer.status === 401) return toLogin();
    if (answer.status === 422) {
      const data = answer.body.data as Record<string, unknown>;
      const aboutProof = reauth.refused(data, { retry: again });
      if (aboutProof) return setError(form, aboutProof);
      const { password: messages, ...rest } = data;
      return showValidationErrors(form, messages === undefined ? rest : { new_password: messages, ...rest });
    }
    if (answer.status !== 200) return setError(form, errorText(answer));
    input('new_password').value = '';
    input('new_password_again').value = '';
    input('new_password').dispatchEvent(new Event('input'));
    showUser(answer.body.data.user);
    setStatus(form, t('status.password_changed'));
  });
}
