import { api } from '../lib/api.js';
import { type ConsentDocument, documentLink } from '../lib/consent-documents.js';
import { clearMessages, errorText, setError, setStatus, showField } from '../lib/form.js';
import { t } from '../lib/i18n.js';
import { tokenFromUrl } from '../lib/link-token.js';

/** What guardian/consent says of the link. */
interface LinkView {
  purpose: 'consent' | 'withdraw';
  child: { username: string };
  documents: ConsentDocument[];
  method: 'mailed_link' | 'identity_verification';
}

const form = document.getElementById('guardian-consent') as HTMLFormElement;
const token = tokenFromUrl();
const element = (id: string) => document.getElementById(id) as HTMLElement;
const buttons = ['guardian-agree', 'guardian-refuse', 'guardian-withdraw'].map(element);

function linkUsed(): void {
  showField('token', [t('error.link_used')], true);
  for (const button of buttons) button.hidden = true;
}

function show(view: LinkView): void {
  const name = view.child.username;
  if (view.purpose === 'withdraw') {
    element('guardian-lead').textContent = t('guardian.withdraw_lead').replace('{name}', name);
    element('guardian-withdraw').hidden = false;
    return;
  }
  element('guardian-lead').textContent = t('guardian.lead').replace('{name}', name);
  const items = view.documents.map((document_) => {
    const item = document.createElement('li');
    item.append(documentLink(document_, `${document_.title} (v${document_.version})`));
    return item;
  });
  element('guardian-documents').replaceChildren(...items);
  // A verified adult is asked for in the app (PortOne's window); the page alone serves the mailed link.
  const verified = view.method === 'identity_verification';
  element('guardian-method').textContent = t(verified ? 'guardian.method_verified' : 'guardian.method_link');
  if (verified) return;
  element('guardian-agree').hidden = false;
  element('guardian-refuse').hidden = false;
  element('guardian-refuse-note').hidden = false;
}

/** Sends the answer; a button, never on load: mail scanners that open links must not answer for anyone. */
async function send(
  path: string,
  body: Record<string, unknown>,
  done: Parameters<typeof t>[0],
): Promise<void> {
  clearMessages(form);
  for (const button of buttons) (button as HTMLButtonElement).disabled = true;
  const answer = await api(path, { method: 'POST', body }).catch(() => undefined);
  for (const button of buttons) (button as HTMLButtonElement).disabled = false;
  if (!answer) return setError(form, t('error.network'));
  if (answer.status === 422 && answer.body.data.token !== undefined) return linkUsed();
  if (answer.status !== 200) return setError(form, errorText(answer));
  for (const button of buttons) button.hidden = true;
  setStatus(form, t(done));
}

element('guardian-agree').addEventListener('click', () => {
  void send('/guardian/consent', { token, agree: true }, 'status.guardian_granted');
});
element('guardian-refuse').addEventListener('click', () => {
  void send('/guardian/consent', { token, agree: false }, 'status.guardian_refused');
});
element('guardian-withdraw').addEventListener('click', () => {
  void send('/guardian/withdraw', { token }, 'status.guardian_withdrawn');
});

async function load(): Promise<void> {
  if (!token) return linkUsed();
  const answer = await api<LinkView>(`/guardian/consent?token=${encodeURIComponent(token)}`);
  if (answer.status === 422) return linkUsed();
  if (answer.status !== 200) return setError(form, errorText(answer));
  show(answer.body.data);
}

load().catch(() => setError(form, t('error.network')));
