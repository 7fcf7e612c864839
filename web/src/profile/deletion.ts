import { api } from '../lib/api.js';
import { when } from '../lib/dates.js';
import { clearMessages, errorText, onSubmit, setError, setStatus } from '../lib/form.js';
import { t } from '../lib/i18n.js';
import { clearInputs, inputValue, showMappedErrors } from './security-form.js';
import { toLogin } from './user.js';

type Outcome = { deleted: true } | { deleted: false; scheduled_for: string };

/**
 * Deleting the account, with the current password. Every session ends with it (this one too), so the card
 * then says what happens and when, the page's cookie is cleared, and nothing else on the page is usable.
 */
export function deletionSection(): void {
  const form = document.getElementById('delete-account') as HTMLFormElement;

  onSubmit(form, async () => {
    clearMessages(form);
    const answer = await api<Outcome>('/user/delete', {
      method: 'POST',
      body: { current_password: inputValue('delete_password') },
    });
    if (answer.status === 401) return toLogin();
    if (answer.status === 422)
      return showMappedErrors(form, answer.body.data, { current_password: 'delete_password' });
    if (answer.status !== 200) return setError(form, errorText(answer.body));
    clearInputs('delete_password');
    const outcome = answer.body.data;
    await api('/web/session/end', { method: 'POST' });
    for (const element of Array.from(form.querySelectorAll<HTMLElement>('.field, button')))
      element.hidden = true;
    for (const other of Array.from(document.querySelectorAll<HTMLFormElement>('main form'))) {
      if (other !== form) other.inert = true;
    }
    setStatus(
      form,
      outcome.deleted
        ? t('status.deleted')
        : t('status.deletion_scheduled').replace('{date}', when(outcome.scheduled_for)),
    );
  });
}
