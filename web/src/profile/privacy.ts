import { fieldMessages } from '../lib/answers.js';
import { api } from '../lib/api.js';
import { type ConsentDocument, consentDocuments, documentLink } from '../lib/consent-documents.js';
import { when } from '../lib/dates.js';
import { clearMessages, errorText, setError, setStatus } from '../lib/form.js';
import { t } from '../lib/i18n.js';
import { toLogin } from './user.js';

/** The user's latest state of one document, as user/consents lists it. */
interface Consent {
  key: string;
  version: number | null;
  agreed: boolean;
  agreed_at: string | null;
  withdrawn_at: string | null;
  required: boolean;
  current_version: number;
}

/**
 * Marketing agreements are re-confirmed every two years (`accounts consent remind` mails a link to this page
 * then): from 23 months on, an agreed optional document offers "confirm again", which records a new agreement.
 */
const RECONFIRM_AFTER_MS = 700 * 24 * 60 * 60 * 1000;
const isDueForReconfirmation = (consent: Consent) =>
  !consent.required &&
  consent.agreed &&
  consent.agreed_at !== null &&
  Date.now() - Date.parse(consent.agreed_at) >= RECONFIRM_AFTER_MS;

/** A required document asks again when the agreement in force is not to its current version. */
const isPending = (consent: Consent) =>
  consent.required && (!consent.agreed || consent.version !== consent.current_version);

function describe(consent: Consent): string {
  const parts: string[] = [];
  if (consent.version !== null)
    parts.push(t('privacy.version').replace('{version}', String(consent.version)));
  if (consent.agreed) parts.push(t('privacy.agreed_at').replace('{date}', when(consent.agreed_at)));
  else if (consent.withdrawn_at)
    parts.push(t('privacy.withdrawn_at').replace('{date}', when(consent.withdrawn_at)));
  else parts.push(t('privacy.not_agreed'));
  return parts.join(' · ');
}

/**
 * The Privacy card: each document with the version agreed to and when (or when withdrawn). An optional one is
 * a checkbox that agrees or withdraws at once; a required one is shown as agreed and cannot be withdrawn here
 * (that is deleting the account), but a new version of it is prompted with a button that agrees to it.
 * `onChanged`: a change is an event of the Activity card.
 */
export function privacySection(onChanged: () => void): { load(): Promise<void> } {
  const list = document.getElementById('consents') as HTMLUListElement;
  const pendingNotice = document.getElementById('consents-pending') as HTMLElement;
  const form = document.getElementById('consents-form') as HTMLFormElement;
  let documents = new Map<string, ConsentDocument>();

  const titleOf = (key: string) => documents.get(key)?.title ?? key;

  function item(consent: Consent): HTMLLIElement {
    const row = document.createElement('li');
    const text = document.createElement('div');
    text.className = 'session-text';
    const id = `consent-${consent.key}`;
    const name = document.createElement(consent.required ? 'strong' : 'label');
    name.className = 'device';
    name.textContent = titleOf(consent.key);
    if (name instanceof HTMLLabelElement) name.htmlFor = id;
    const details = document.createElement('span');
    details.className = 'meta';
    details.textContent = describe(consent);
    text.append(name, details);
    row.append(text);
    if (isPending(consent)) {
      const prompt = document.createElement('span');
      prompt.className = 'pending';
      prompt.textContent = t('privacy.pending').replace('{version}', String(consent.current_version));
      text.append(prompt);
      const agree = document.createElement('button');
      agree.type = 'button';
      agree.className = 'small primary';
      agree.textContent = t('action.agree');
      agree.setAttribute('aria-label', `${t('action.agree')}: ${titleOf(consent.key)}`);
      agree.addEventListener('click', () => void change(consent.key, true, agree));
      row.append(agree);
    } else if (consent.required) {
      const mark = document.createElement('span');
      mark.className = 'badge';
      mark.textContent = t('privacy.required_agreed');
      row.append(mark);
    } else {
      const toggle = document.createElement('input');
      toggle.type = 'checkbox';
      toggle.id = id;
      toggle.className = 'toggle';
      toggle.checked = consent.agreed;
      toggle.setAttribute('aria-describedby', `${id}-details`);
      details.id = `${id}-details`;
      toggle.addEventListener('change', () => void change(consent.key, toggle.checked, toggle));
      if (isDueForReconfirmation(consent)) {
        const again = document.createElement('button');
        again.type = 'button';
        again.className = 'small';
        again.textContent = t('action.reconfirm');
        again.setAttribute('aria-label', `${t('action.reconfirm')}: ${titleOf(consent.key)}`);
        again.addEventListener('click', () => void change(consent.key, true, again));
        row.append(again);
      }
      row.append(toggle);
    }
    const document_ = documents.get(consent.key);
    if (document_) text.append(documentLink(document_, t('consent.read')));
    return row;
  }

  let asked = false;
  /**
   * A required document waiting for agreement marks the section in the side list and, the first time and
   * when the address names no section, opens it: the reminder mail links to /profile.
   */
  function show(consents: Consent[]): void {
    list.replaceChildren(...consents.map(item));
    const pending = consents.some(isPending);
    pendingNotice.hidden = !pending;
    document.querySelector('[data-section-link="privacy"]')?.classList.toggle('attention', pending);
    if (pending && !asked && location.hash === '') location.hash = 'privacy';
    asked ||= pending;
  }

  /** One document on or off (channel `web`); the card then shows the state the API answered. */
  async function change(key: string, agree: boolean, control: HTMLInputElement | HTMLButtonElement) {
    clearMessages(form);
    control.disabled = true;
    try {
      const answer = await api<{ consents: Consent[] }>('/user/consents/update', {
        method: 'POST',
        body: { [key]: agree ? 'on' : 'off', channel: 'web' },
      });
      if (answer.status === 401) return toLogin();
      if (answer.status !== 200) {
        const messages = answer.body.data[key as never] as unknown;
        setError(form, Array.isArray(messages) ? fieldMessages(messages, key).join(' ') : errorText(answer));
        return await load();
      }
      show(answer.body.data.consents);
      onChanged();
      const title = titleOf(key);
      setStatus(form, t(agree ? 'status.consent_on' : 'status.consent_off').replace('{title}', title));
    } catch {
      setError(form, t('error.network'));
    } finally {
      control.disabled = false;
    }
  }

  async function load(): Promise<void> {
    const [answer, known] = await Promise.all([
      api<{ consents: Consent[] }>('/user/consents'),
      consentDocuments(),
    ]);
    if (answer.status === 401) return toLogin();
    if (answer.status !== 200) return setError(form, errorText(answer));
    if (known) documents = new Map(known.map((document_) => [document_.key, document_]));
    show(answer.body.data.consents);
  }

  return { load };
}
