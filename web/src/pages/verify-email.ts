import { api } from '../lib/api.js';
import { clearMessages, errorText, onSubmit, setError, setStatus, showField } from '../lib/form.js';
import { t } from '../lib/i18n.js';
import { tokenFromUrl } from '../lib/link-token.js';

const form = document.getElementById('verify') as HTMLFormElement;
const resend = document.getElementById('resend') as HTMLFormElement;
const token = tokenFromUrl();

/** The link cannot verify anything: say why, take the button away, and offer a new link instead. */
function offerNewLink(reason: string): void {
  showField('token', [reason], true);
  for (const button of Array.from(form.querySelectorAll('button'))) button.hidden = true;
  resend.hidden = false;
}

if (!token) offerNewLink(t('error.no_token'));

// A button, not an automatic call on load: mail scanners that open links must not use the token up.
onSubmit(form, async () => {
  clearMessages(form);
  if (!token) return offerNewLink(t('error.no_token'));
  const answer = await api('/auth/email/verify', { method: 'POST', body: { token } });
  if (answer.status === 200) {
    for (const button of Array.from(form.querySelectorAll('button'))) button.hidden = true;
    return setStatus(form, t('status.verified'));
  }
  if (answer.status === 422 && answer.body.data.token !== undefined)
    return offerNewLink(t('error.link_used'));
  setError(form, errorText(answer));
});

/** A new link goes to the signed-in account's address; without a session the page says to log in first. */
onSubmit(resend, async () => {
  clearMessages(resend);
  const answer = await api<{ status?: string }>('/user/email/resend', { method: 'POST', body: {} });
  if (answer.status === 401) {
    (document.getElementById('resend-login') as HTMLElement).hidden = false;
    for (const button of Array.from(resend.querySelectorAll('button'))) button.hidden = true;
    return;
  }
  if (answer.status !== 200) return setError(resend, errorText(answer));
  for (const button of Array.from(resend.querySelectorAll('button'))) button.hidden = true;
  setStatus(
    resend,
    t(
      answer.body.data.status === 'already_verified' ? 'status.already_verified' : 'status.verification_sent',
    ),
  );
});
