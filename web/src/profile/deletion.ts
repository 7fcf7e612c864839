import { api } from '../lib/api.js';
import { allPageSentences } from '../lib/field-errors.js';
import { clearMessages, errorText, onSubmit, setError, showField } from '../lib/form.js';
import { t } from '../lib/i18n.js';
import { askForProof, type Reauth } from './reauth.js';
import { toLogin } from './user.js';

type Outcome = { deleted: true } | { deleted: false; scheduled_for: string };

/** Typed as the label asks, whatever the case and spaces around it. */
const sameWords = (a: string, b: string) => a.trim().replace(/\s+/g, ' ').toLowerCase() === b.toLowerCase();

/**
 * Deleting the account: the confirmation phrase typed, and the owner's proof. Every session ends with it
 * (this one too), so the page's cookie is cleared and the browser leaves the profile for the page that
 * says what happens next and how to take it back.
 */
export function deletionSection(reauth: Reauth): void {
  const form = document.getElementById('delete-account') as HTMLFormElement;
  const confirmation = document.getElementById('delete_confirm') as HTMLInputElement;
  const word = t('delete.confirm_word');

  onSubmit(form, async () => {
    clearMessages(form);
    if (!sameWords(confirmation.value, word)) {
      showField('delete_confirm', [t('delete.confirm_mismatch').replace('{word}', word)], true);
      return confirmation.focus();
    }
    const proof = await reauth.proof();
    if (!proof) return askForProof(form);
    const answer = await api<Outcome>('/user/delete', { method: 'POST', body: proof });
    if (answer.status === 401) return toLogin();
    if (answer.status === 422) {
      const data = answer.body.data as Record<string, unknown>;
      return setError(form, reauth.refused(data) ?? allPageSentences(data).join(' '));
    }
    if (answer.status !== 200) return setError(form, errorText(answer));
    const outcome = answer.body.data;
    await api('/web/session/end', { method: 'POST' });
    location.replace(
      outcome.deleted
        ? '/account-deleted'
        : `/account-deleted?on=${encodeURIComponent(outcome.scheduled_for)}`,
    );
  });
}
