import { api } from '../lib/api.js';
import { clearMessages, errorText, onSubmit, setError, setStatus, showField } from '../lib/form.js';
import { t } from '../lib/i18n.js';
import { tokenFromUrl } from '../lib/link-token.js';

const form = document.getElementById('cancel-deletion') as HTMLFormElement;
const token = tokenFromUrl();
if (!token) showField('token', [t('error.no_token')], true);

// A button, not an automatic call on load: mail scanners that open links must not use the token up.
onSubmit(form, async () => {
  clearMessages(form);
  if (!token) return showField('token', [t('error.no_token')], true);
  const answer = await api('/auth/deletion/cancel', { method: 'POST', body: { token } });
  // The answer signs in like a login; the page keeps no session (the devices sign in again).
  if (answer.status === 200) return setStatus(form, t('status.deletion_cancelled'));
  const messages = answer.body.data.token;
  if (answer.status === 422 && Array.isArray(messages)) return showField('token', messages.map(String), true);
  setError(form, errorText(answer.body));
});
