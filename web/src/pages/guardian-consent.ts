import { api } from '../lib/api.js';
import { type ConsentDocument, documentLink } from '../lib/consent-documents.js';
import { clearMessages, errorText, setError, setStatus, showField } from '../lib/form.js';
import { t } from '../lib/i18n.js';
import { tokenFromUrl } from '../lib/link-token.js';
import { portOneReturn, runPortOneWindow, type StartedVerification } from '../lib/portone.js';

/** What guardian/consent says of the link. */
interface LinkView {
  purpose: 'consent' | 'withdraw';
  child: { username: string };
  documents: ConsentDocument[];
  method: 'mailed_link' | 'identity_verification';
}

/** What waits in the tab while a phone's browser is at PortOne's page: the link and the answer pressed. */
interface Answering {
  token: string;
  agree: boolean;
  /** The guardian pressed "withdraw" (then `agree` is false and unused). */
  withdraw?: boolean;
}

const PAGE = 'guardian-consent';
const form = document.getElementById('guardian-consent') as HTMLFormElement;
const element = (id: string) => document.getElementById(id) as HTMLElement;
const buttons = ['guardian-agree', 'guardian-refuse', 'guardian-withdraw'].map(element);

// Back from PortOne's page (a phone): the link comes from the tab, not from PortOne's address, and goes back
// into the address so that a reload or the language switch still finds it.
const returned = portOneReturn<Answering>(PAGE);
const token = returned?.context.token ?? tokenFromUrl();
if (returned)
  history.replaceState(null, '', `${location.pathname}?token=${encodeURIComponent(returned.context.token)}`);
let method: LinkView['method'] = 'mailed_link';

function linkUsed(): void {
  showField('token', [t('error.link_used')], true);
  for (const button of buttons) button.hidden = true;
}

function show(view: LinkView): void {
  const name = view.child.username;
  method = view.method;
  if (view.purpose === 'withdraw') {
    element('guardian-lead').textContent = t('guardian.withdraw_lead').replace('{name}', name);
    // A consent given with a verified identity is withdrawn only by the same guardian, verified again.
    if (method === 'identity_verification') {
      element('guardian-method').textContent = t('guardian.withdraw_verified');
    }
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
  const verified = method === 'identity_verification';
  element('guardian-method').textContent = t(verified ? 'guardian.method_verified' : 'guardian.method_link');
  element('guardian-agree').hidden = false;
  element('guardian-refuse').hidden = false;
  element('guardian-refuse-note').hidden = false;
}

/** Runs one answer with the buttons disabled; a network failure says so. */
async function busy(run: () => Promise<void>): Promise<void> {
  clearMessages(form);
  for (const button of buttons) (button as HTMLButtonElement).disabled = true;
  await run().catch(() => setError(form, t('error.network')));
  for (const button of buttons) (button as HTMLButtonElement).disabled = false;
}

type Key = Parameters<typeof t>[0];

/** Sends the answer; a button, never on load: mail scanners that open links must not answer for anyone. */
async function send(path: string, body: Record<string, unknown>, done: Key, unverified: Key) {
  const answer = await api(path, { method: 'POST', body });
  if (answer.status === 422 && answer.body.data.token !== undefined) return linkUsed();
  // A verification that failed, went stale, shows a minor or someone else: nothing was recorded.
  if (answer.status === 422 && answer.body.data.identity_verification_id !== undefined) {
    return setError(form, t(unverified));
  }
  if (answer.status !== 200) return setError(form, errorText(answer));
  for (const button of buttons) button.hidden = true;
  element('guardian-refuse-note').hidden = true;
  setStatus(form, t(done));
}

const verification = (id?: string) => (id ? { identity_verification_id: id } : {});

const consent = (agree: boolean, identityVerificationId?: string) =>
  send(
    '/guardian/consent',
    { token, agree, ...verification(identityVerificationId) },
    agree ? 'status.guardian_granted' : 'status.guardian_refused',
    'guardian.not_adult',
  );

const withdraw = (identityVerificationId?: string) =>
  send(
    '/guardian/withdraw',
    { token, ...verification(identityVerificationId) },
    'status.guardian_withdrawn',
    'guardian.not_the_guardian',
  );

/**
 * PortOne's window for this link (guardian/identity/start, then the SDK): the verification's id once it
 * completed, else undefined with the reason shown. A phone's redirect leaves the page here; `context` waits
 * in the tab for its return (`load`).
 */
async function verifiedId(context: Answering): Promise<string | undefined> {
  const started = await api<StartedVerification>('/guardian/identity/start', {
    method: 'POST',
    body: { token },
  });
  if (started.status === 422) return void linkUsed();
  if (started.status === 503 && (started.body.data as { status?: string }).status) {
    return void setError(form, t('identity.unavailable'));
  }
  if (started.status !== 200) return void setError(form, errorText(started));
  const outcome = await runPortOneWindow<Answering>(PAGE, started.body.data, context);
  if (outcome === 'failed') return void setError(form, t('identity.window_failed'));
  if (outcome === 'closed') return void setError(form, t('guardian.verification_cancelled'));
  return started.body.data.identity_verification_id;
}

/**
 * An answer, either way, or a withdrawal. Where the service verifies guardians (`identity_verification`),
 * each needs the guardian's verification (src/account/guardian/service.ts): for a consent or a refusal an
 * adult's, for a withdrawal the same guardian's who consented. The guardian passes PortOne's window first
 * and the answer carries its id.
 */
async function answer(agree: boolean, withdrawing = false): Promise<void> {
  if (!token) return linkUsed();
  const done = (id?: string) => (withdrawing ? withdraw(id) : consent(agree, id));
  if (method !== 'identity_verification') return done();
  const id = await verifiedId({ token, agree, withdraw: withdrawing });
  if (id !== undefined) await done(id);
}

element('guardian-agree').addEventListener('click', () => void busy(() => answer(true)));
element('guardian-refuse').addEventListener('click', () => void busy(() => answer(false)));
element('guardian-withdraw').addEventListener('click', () => void busy(() => answer(false, true)));

async function load(): Promise<void> {
  if (!token) return linkUsed();
  const link = await api<LinkView>(`/guardian/consent?token=${encodeURIComponent(token)}`);
  if (link.status === 422) return linkUsed();
  if (link.status !== 200) return setError(form, errorText(link));
  show(link.body.data);
  if (!returned) return;
  // The answer the guardian pressed before PortOne took the tab away; this tab started that verification.
  const { agree, withdraw: withdrawing } = returned.context;
  if (!returned.completed) return setError(form, t('guardian.verification_cancelled'));
  await busy(() => (withdrawing ? withdraw(returned.id) : consent(agree, returned.id)));
}

load().catch(() => setError(form, t('error.network')));
