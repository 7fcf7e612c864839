import { clearMessages, onSubmit, setError, setStatus, showValidationErrors } from '../lib/form.js';
import { t } from '../lib/i18n.js';
import { consoleAnswerText } from './answers.js';
import { askReason, type Me, post } from './staff.js';

/**
 * The read-only parts of a user's page below the profile (devices, consents, identity, deletion, account
 * events) and the rename form. Everything from the API is set as text, never read as HTML.
 */

export interface UserParts {
  devices: { device_id: string; platform: string | null; app_version: string | null; updated_at: string }[];
  consents: { records: { key: string; version: number; agreed: boolean; at: string; channel: string }[] };
  identity: Record<string, unknown>;
  deletion: Record<string, unknown>;
  account_events: { type: string; occurred_at: string }[];
}

const element = (id: string) => document.getElementById(id) as HTMLElement;

/**
 * A list of lines, or "None." when there are none (an empty card reads as not loaded); `sayNone` false leaves
 * a list whose items carry buttons (the sessions) empty.
 */
export function lines(list: HTMLElement, texts: string[], sayNone = true): void {
  const shown = texts.length === 0 && sayNone ? [t('console.user.none')] : texts;
  list.replaceChildren(
    ...shown.map((text) => {
      const li = document.createElement('li');
      li.textContent = text;
      return li;
    }),
  );
}

/** A description list of a part's fields, each named in the page's words (else by its API name). */
export function terms(list: HTMLElement, values: Record<string, unknown>): void {
  list.replaceChildren();
  for (const [name, value] of Object.entries(values)) {
    const dt = document.createElement('dt');
    const label = `console.user.field.${name}`;
    dt.textContent = t(label) === label ? name : t(label);
    const dd = document.createElement('dd');
    dd.textContent = value === null || value === undefined ? '—' : String(value);
    list.append(dt, dd);
  }
}

export function drawParts(page: UserParts): void {
  lines(
    element('devices'),
    page.devices.map((d) => [d.platform ?? '—', d.app_version ?? '—', d.device_id, d.updated_at].join(' · ')),
  );
  lines(
    element('consents'),
    page.consents.records.map((r) =>
      [
        `${r.key} v${r.version}`,
        t(r.agreed ? 'console.user.agreed' : 'console.user.withdrawn'),
        r.at,
        r.channel,
      ].join(' · '),
    ),
  );
  terms(element('identity'), page.identity);
  terms(element('deletion'), page.deletion);
  lines(
    element('account-events'),
    page.account_events.map((event) => `${event.occurred_at} · ${event.type}`),
  );
}

/**
 * The rename form (users.act): the fields that change, then the reason in the page's dialog. A 422 shows
 * beside each field in the API's rules (a taken name, a too-short address); a reason's own message, whose
 * field is in the closed dialog, on the form's error line.
 */
export function renameForm(me: Me, userId: string, reload: () => Promise<void>): void {
  const form = document.getElementById('rename') as HTMLFormElement;
  (document.getElementById('rename-card') as HTMLElement).hidden = false;
  onSubmit(form, async () => {
    clearMessages(form);
    const body: Record<string, string> = {};
    for (const name of ['username', 'slug']) {
      const value = (form.elements.namedItem(name) as HTMLInputElement).value.trim();
      if (value !== '') body[name] = value;
    }
    const reason = await askReason();
    if (reason === undefined) return;
    body.reason = reason;
    const answer = await post(me, `/users/${encodeURIComponent(userId)}/rename`, body);
    if (answer.status === 422) {
      const { reason: reasonMessages, ...fields } = answer.body.data as Record<string, unknown>;
      showValidationErrors(form, fields);
      if (reasonMessages !== undefined) setError(form, String(reasonMessages));
      return;
    }
    if (answer.status !== 200) return setError(form, consoleAnswerText(answer));
    form.reset();
    setStatus(form, t('console.user.done'));
    await reload();
  });
}
