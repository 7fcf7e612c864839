import { api } from '../lib/api.js';
import { when } from '../lib/dates.js';
import { deviceInWords } from '../lib/devices.js';
import { clearMessages, errorText, onSubmit, setError } from '../lib/form.js';
import { t } from '../lib/i18n.js';
import { toLogin } from './user.js';

/** One event as user/activity lists it. */
interface ActivityEvent {
  id: string;
  type: string;
  at: string;
  ip: string | null;
  device: string;
  details: Record<string, unknown>;
}

/** A page of the card; small, so that the list stays short until asked for more. */
const PAGE_SIZE = 10;

/** A sign-in says how: with a passkey, the password, after a reset, or a provider's account. */
function signInWords(event: ActivityEvent): string {
  const method = event.details.method;
  if (typeof method !== 'string') return t('activity.type.sign_in');
  const key = `activity.sign_in.${method}`;
  if (t(key) !== key) return t(key);
  return t('activity.sign_in.provider').replace(
    '{provider}',
    method.charAt(0).toUpperCase() + method.slice(1),
  );
}

/** The event's kind in words; a kind this page does not know yet still shows, as "other activity". */
function typeInWords(event: ActivityEvent): string {
  const key = `activity.type.${event.type}`;
  const words =
    event.type === 'sign_in' ? signInWords(event) : t(key) === key ? t('activity.type.other') : t(key);
  // Failed sign-ins are counted per window: one row says how many.
  return typeof event.details.count === 'number' && event.details.count > 1
    ? `${words} ×${event.details.count}`
    : words;
}

function eventItem(event: ActivityEvent): HTMLLIElement {
  const item = document.createElement('li');
  const text = document.createElement('div');
  text.className = 'session-text';
  const kind = document.createElement('strong');
  kind.className = 'device';
  kind.textContent = typeInWords(event);
  // textContent only: the device name and address come from what the client sent.
  const details = document.createElement('span');
  details.className = 'meta';
  details.textContent = [deviceInWords(event.device), event.ip ?? '–', when(event.at)].join(' · ');
  text.append(kind, details);
  item.append(text);
  return item;
}

/**
 * The account's security activity, newest first; "more" fetches the next page with the API's cursor.
 * `refresh` starts again from the newest, after another card did something that is an event.
 */
export function activitySection(): { load(): Promise<void>; refresh(): void } {
  const list = document.getElementById('activity') as HTMLOListElement;
  const empty = document.getElementById('no-activity') as HTMLElement;
  const form = document.getElementById('activity-more') as HTMLFormElement;
  const more = form.querySelector('button') as HTMLButtonElement;
  let cursor: string | null = null;

  async function page(after: string | null): Promise<void> {
    const query = new URLSearchParams({ limit: String(PAGE_SIZE) });
    if (after) query.set('cursor', after);
    const answer = await api<{ events: ActivityEvent[]; next_cursor: string | null }>(
      `/user/activity?${query}`,
    );
    if (answer.status === 401) return toLogin();
    if (answer.status !== 200) return setError(form, errorText(answer));
    const items = answer.body.data.events.map(eventItem);
    if (after) list.append(...items);
    else list.replaceChildren(...items);
    cursor = answer.body.data.next_cursor;
    more.hidden = cursor === null;
    empty.hidden = list.children.length > 0;
  }

  onSubmit(form, async () => {
    clearMessages(form);
    await page(cursor);
  });

  return {
    load: () => page(null),
    refresh: () => {
      page(null).catch(() => setError(form, t('error.network')));
    },
  };
}
