import { consoleAnswerText } from '../console/answers.js';
import { askReason, type Me, post, row, signedIn } from '../console/staff.js';
import { api } from '../lib/api.js';
import { clearMessages, onSubmit, setError, setStatus, showValidationErrors } from '../lib/form.js';
import { t } from '../lib/i18n.js';

/**
 * /console/webhooks: the endpoints with their actions, the add form, and the chosen endpoint's deliveries a
 * keyset page at a time, each with a "send again". Every change asks its reason first (the access record
 * keeps it); a new endpoint's or a rotated secret shows once, in the endpoints' card.
 */
const endpointsTable = document.getElementById('endpoints') as HTMLElement;
const endpointsBody = document.querySelector('#endpoints tbody') as HTMLElement;
const endpointsNone = document.getElementById('endpoints-none') as HTMLElement;
const endpointsStatus = document.getElementById('endpoints-status') as HTMLElement;
const secretBox = document.getElementById('secret-box') as HTMLElement;
const secret = document.getElementById('secret') as HTMLElement;
const addForm = document.getElementById('webhook-add') as HTMLFormElement;
const deliveriesCard = document.getElementById('deliveries-card') as HTMLElement;
const deliveriesHeading = document.getElementById('deliveries-h') as HTMLElement;
const deliveriesOf = document.getElementById('deliveries-of') as HTMLElement;
const deliveriesTable = document.getElementById('deliveries') as HTMLElement;
const deliveriesBody = document.querySelector('#deliveries tbody') as HTMLElement;
const deliveriesNone = document.getElementById('deliveries-none') as HTMLElement;
const deliveriesStatus = document.getElementById('deliveries-status') as HTMLElement;
const next = document.getElementById('next') as HTMLButtonElement;

interface Endpoint {
  id: string;
  url: string;
  events: string[] | null;
  disabled_at: string | null;
  failing_since: string | null;
}

interface Delivery {
  event_id: string;
  type: string;
  state: string;
  attempts: {
    attempt: number;
    at: string;
    outcome: string;
    status_code: number | null;
    error: string | null;
  }[];
}

/** The endpoint whose deliveries are shown, and where its next page starts. */
let shown: Endpoint | undefined;
let cursor: string | null = null;

/** Writes an outcome into a section's status or error line (the other cleared). */
function say(section: HTMLElement, text: string, error = false): void {
  (section.querySelector('.status') as HTMLElement).textContent = error ? '' : text;
  (section.querySelector('.error') as HTMLElement).textContent = error ? text : '';
}

function button(label: string, name: string, act: () => Promise<void>): HTMLButtonElement {
  const element = document.createElement('button');
  element.type = 'button';
  element.textContent = label;
  element.setAttribute('aria-label', `${label}: ${name}`);
  element.addEventListener('click', () => {
    act()
      .catch(() => say(endpointsStatus, t('error.network'), true))
      .finally(() => {
        if (element.isConnected) element.focus();
      });
  });
  return element;
}

function showSecret(value: string): void {
  secret.textContent = value;
  secretBox.hidden = false;
}

/** A change to one endpoint: its reason first, then the POST; the list again after. */
function change(me: Me, endpoint: Endpoint, action: string, label: string): HTMLButtonElement {
  return button(label, endpoint.url, async () => {
    const reason = await askReason();
    if (reason === undefined) return;
    const path = `/webhooks/${encodeURIComponent(endpoint.id)}/${action}`;
    const answer = await post<{ secret?: string }>(me, path, { reason });
    if (answer.status !== 200) return say(endpointsStatus, consoleAnswerText(answer), true);
    if (answer.body.data.secret) showSecret(answer.body.data.secret);
    say(endpointsStatus, t('console.user.done'));
    if (action === 'remove' && shown?.id === endpoint.id) deliveriesCard.hidden = true;
    await loadEndpoints(me);
  });
}

function stateOf(endpoint: Endpoint): string {
  if (endpoint.disabled_at !== null) return t('console.webhooks.state.disabled');
  return t(endpoint.failing_since ? 'console.webhooks.state.failing' : 'console.webhooks.state.enabled');
}

async function loadEndpoints(me: Me): Promise<void> {
  const answer = await api<{ endpoints: Endpoint[] }>('/webhooks');
  if (answer.status !== 200) return say(endpointsStatus, consoleAnswerText(answer), true);
  endpointsBody.replaceChildren();
  for (const endpoint of answer.body.data.endpoints) {
    const actions = document.createElement('div');
    actions.className = 'actions';
    const toggle = endpoint.disabled_at === null ? 'disable' : 'enable';
    actions.append(
      button(t('console.webhooks.show_deliveries'), endpoint.url, () => showDeliveries(me, endpoint)),
      change(me, endpoint, toggle, t(`console.action.${toggle}`)),
      change(me, endpoint, 'rotate-secret', t('console.webhooks.rotate')),
      change(me, endpoint, 'remove', t('console.webhooks.remove')),
    );
    const events = endpoint.events?.join(', ') ?? t('console.webhooks.all_events');
    endpointsBody.append(row(endpointsTable, [endpoint.url, events, stateOf(endpoint), actions]));
  }
  endpointsNone.hidden = endpointsBody.childElementCount > 0;
}

async function showDeliveries(me: Me, endpoint: Endpoint): Promise<void> {
  shown = endpoint;
  cursor = null;
  deliveriesBody.replaceChildren();
  deliveriesOf.textContent = endpoint.url;
  deliveriesCard.hidden = false;
  await loadDeliveries(me);
  deliveriesHeading.focus();
}

async function loadDeliveries(me: Me): Promise<void> {
  if (shown === undefined) return;
  const endpoint = shown;
  const query = new URLSearchParams(cursor ? { cursor } : {});
  const answer = await api<{ deliveries: Delivery[]; next_cursor: string | null }>(
    `/webhooks/${encodeURIComponent(endpoint.id)}/deliveries?${query}`,
  );
  if (answer.status !== 200) return say(deliveriesStatus, consoleAnswerText(answer), true);
  for (const delivery of answer.body.data.deliveries) {
    const attempts = document.createElement('ul');
    for (const attempt of delivery.attempts) {
      const item = document.createElement('li');
      const result = attempt.status_code ?? attempt.error ?? '—';
      item.textContent = `#${attempt.attempt} · ${attempt.at.replace('T', ' ').slice(0, 19)} · ${result}`;
      attempts.append(item);
    }
    const replay = button(t('console.webhooks.replay'), delivery.event_id, async () => {
      const reason = await askReason();
      if (reason === undefined) return;
      const path = `/webhooks/${encodeURIComponent(endpoint.id)}/deliveries/${encodeURIComponent(delivery.event_id)}/replay`;
      const sent = await post(me, path, { reason });
      if (sent.status !== 200) return say(deliveriesStatus, consoleAnswerText(sent), true);
      say(deliveriesStatus, t('console.webhooks.queued'));
    });
    const state = t(`console.webhooks.state.${delivery.state}`);
    deliveriesBody.append(row(deliveriesTable, [delivery.event_id, delivery.type, state, attempts, replay]));
  }
  cursor = answer.body.data.next_cursor;
  next.hidden = cursor === null;
  deliveriesNone.hidden = deliveriesBody.childElementCount > 0;
}

signedIn()
  .then(async (me) => {
    onSubmit(addForm, async () => {
      clearMessages(addForm);
      const data = new FormData(addForm);
      const events = String(data.get('events') ?? '')
        .split(',')
        .map((type) => type.trim())
        .filter((type) => type !== '');
      const reason = await askReason();
      if (reason === undefined) return;
      const answer = await post<{ secret: string }>(me, '/webhooks', {
        url: String(data.get('url') ?? ''),
        ...(events.length > 0 ? { events } : {}),
        ...(String(data.get('description') ?? '') === '' ? {} : { description: data.get('description') }),
        reason,
      });
      if (answer.status === 422) return showValidationErrors(addForm, answer.body.data);
      if (answer.status !== 200) return setError(addForm, consoleAnswerText(answer));
      showSecret(answer.body.data.secret);
      addForm.reset();
      setStatus(addForm, t('console.user.done'));
      await loadEndpoints(me);
    });
    next.addEventListener('click', () => {
      loadDeliveries(me).catch(() => say(deliveriesStatus, t('error.network'), true));
    });
    await loadEndpoints(me);
  })
  .catch(() => say(endpointsStatus, t('error.network'), true));
