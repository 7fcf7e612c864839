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
import { tokenFromUrl } from '../lib/link-token.js';
import { revealButtons } from '../lib/password-field.js';

const form = document.getElementById('cancel-deletion') as HTMLFormElement;
const credentials = document.getElementById('cancel-credentials') as HTMLElement;
const token = tokenFromUrl();
// Without the mailed link, the API takes the account's email and password instead.
credentials.hidden = token !== undefined;
revealButtons();

const value = (id: string) => (document.getElementById(id) as HTMLInputElement).value;

// A button, not an automatic call on load: mail scanners that open links must not use the token up.
onSubmit(form, async () => {
  clearMessages(form);
  const body = token ? { token } : { email: value('email'), password: value('password') };
  const answer = await api('/auth/deletion/cancel', { method: 'POST', body });
  // The answer signs in like a login; the page keeps no session (the devices sign in again).
  if (answer.status === 200) {
    // Done: the link works once and the account is no longer scheduled, so there is nothing left to send.
    credentials.hidden = true;
    for (const button of Array.from(form.querySelectorAll('button'))) button.hidden = true;
    return setStatus(form, t('status.deletion_cancelled'));
  }
  if (answer.status !== 422) return setError(form, errorText(answer));
  // A used or outdated link: the page's own words (the API's name for it is "token").
  if (token && answer.body.data.token !== undefined) return showField('token', [t('error.link_used')], true);
  showValidationErrors(form, answer.body.data);
});
