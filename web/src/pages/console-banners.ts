import { consoleAnswerText } from '../console/answers.js';
import { type Me, row, signedIn } from '../console/staff.js';
import { api } from '../lib/api.js';
import { clearMessages, onSubmit, setError, setStatus, showValidationErrors } from '../lib/form.js';
import { t } from '../lib/i18n.js';

/** /console/banners: every banner a keyset page at a time; adding (an upload), changing and removing. */
const addForm = document.getElementById('banner-add') as HTMLFormElement;
const table = document.getElementById('banners') as HTMLElement;
const body = document.querySelector('#banners tbody') as HTMLElement;
const none = document.getElementById('banners-none') as HTMLElement;
const next = document.getElementById('next') as HTMLButtonElement;
const listCard = table.closest('.card') as HTMLElement;
const dialog = document.getElementById('banner-edit') as HTMLDialogElement;
const editForm = document.getElementById('banner-edit-form') as HTMLFormElement;
const cancel = document.getElementById('banner-edit-cancel') as HTMLButtonElement;

interface Banner {
  id: string;
  title: string;
  image_url: string;
  link_url: string | null;
  position: number;
  starts_at: string | null;
  ends_at: string | null;
  state: 'active' | 'scheduled' | 'ended';
}

let cursor: string | null = null;
let editing: Banner | undefined;
const me = signedIn();

/** A datetime-local value as the API wants it: the instant with the browser's own offset; empty stays empty. */
function instant(local: string): string {
  if (local === '') return '';
  const date = new Date(local);
  const offset = -date.getTimezoneOffset();
  const sign = offset >= 0 ? '+' : '-';
  const hours = String(Math.floor(Math.abs(offset) / 60)).padStart(2, '0');
  const minutes = String(Math.abs(offset) % 60).padStart(2, '0');
  return `${local.length === 16 ? `${local}:00` : local}${sign}${hours}:${minutes}`;
}

/** An instant as a datetime-local input shows it, in the browser's zone. */
function localValue(iso: string | null): string {
  if (iso === null) return '';
  const date = new Date(iso);
  return new Date(date.getTime() - date.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
}

const when = (iso: string | null) => (iso === null ? '…' : new Date(iso).toLocaleString());

function post<T = Record<string, unknown>>(
  session: Me,
  path: string,
  data: FormData | Record<string, unknown>,
) {
  return api<T>(path, { method: 'POST', body: data, headers: { 'x-csrf-token': session.csrf_token } });
}

function actions(banner: Banner, canWrite: boolean): Node {
  const cell = document.createElement('span');
  if (!canWrite) return cell;
  for (const [label, run] of [
    ['console.banners.edit', () => openEdit(banner)],
    ['console.banners.remove', () => remove(banner)],
  ] as const) {
    const button = document.createElement('button');
    button.type = 'button';
    button.textContent = t(label);
    button.addEventListener('click', () => {
      void run();
    });
    cell.append(button, ' ');
  }
  return cell;
}

async function load(append: boolean): Promise<void> {
  const session = await me;
  const query = new URLSearchParams({ limit: '20' });
  if (append && cursor) query.set('cursor', cursor);
  const answer = await api<{ banners: Banner[]; next_cursor: string | null }>(`/banners?${query}`);
  if (answer.status !== 200)
    return void (listCard.querySelector('.error') as HTMLElement).append(consoleAnswerText(answer));
  if (!append) body.replaceChildren();
  const canWrite = session.permissions.includes('content.write');
  for (const banner of answer.body.data.banners) {
    const image = document.createElement('img');
    image.src = banner.image_url;
    image.alt = banner.title;
    image.width = 120;
    image.loading = 'lazy';
    body.append(
      row(table, [
        image,
        banner.title,
        String(banner.position),
        t(`console.banners.state.${banner.state}`),
        `${when(banner.starts_at)} – ${when(banner.ends_at)}`,
        banner.link_url ?? '',
        actions(banner, canWrite),
      ]),
    );
  }
  cursor = answer.body.data.next_cursor;
  next.hidden = cursor === null;
  none.hidden = body.childElementCount > 0;
}

function openEdit(banner: Banner): void {
  editing = banner;
  clearMessages(editForm);
  const set = (name: string, value: string) => {
    (editForm.elements.namedItem(name) as HTMLInputElement).value = value;
  };
  set('edit_link_url', banner.link_url ?? '');
  set('edit_position', String(banner.position));
  set('edit_starts_at', localValue(banner.starts_at));
  set('edit_ends_at', localValue(banner.ends_at));
  dialog.showModal();
}

async function remove(banner: Banner): Promise<void> {
  if (!window.confirm(t('console.banners.confirm_remove'))) return;
  const answer = await post(await me, `/banners/${encodeURIComponent(banner.id)}/delete`, {});
  const status = listCard.querySelector('.status') as HTMLElement;
  if (answer.status !== 200) {
    status.textContent = consoleAnswerText(answer);
    return;
  }
  status.textContent = t('console.banners.removed');
  await load(false);
}

onSubmit(addForm, async () => {
  clearMessages(addForm);
  const data = new FormData(addForm);
  for (const name of ['starts_at', 'ends_at']) data.set(name, instant(String(data.get(name) ?? '')));
  const answer = await post(await me, '/banners', data);
  if (answer.status === 422) return showValidationErrors(addForm, answer.body.data);
  if (answer.status !== 200) return setError(addForm, consoleAnswerText(answer));
  addForm.reset();
  setStatus(addForm, t('console.banners.added'));
  await load(false);
});

onSubmit(editForm, async () => {
  if (!editing) return;
  clearMessages(editForm);
  const value = (name: string) => (editForm.elements.namedItem(`edit_${name}`) as HTMLInputElement).value;
  const answer = await post(await me, `/banners/${encodeURIComponent(editing.id)}/update`, {
    link_url: value('link_url'),
    position: value('position'),
    starts_at: instant(value('starts_at')),
    ends_at: instant(value('ends_at')),
  });
  if (answer.status === 422) {
    const named = Object.fromEntries(Object.entries(answer.body.data).map(([k, v]) => [`edit_${k}`, v]));
    return showValidationErrors(editForm, named);
  }
  if (answer.status !== 200) return setError(editForm, consoleAnswerText(answer));
  dialog.close();
  (listCard.querySelector('.status') as HTMLElement).textContent = t('console.banners.saved');
  await load(false);
});

cancel.addEventListener('click', () => dialog.close());
next.addEventListener('click', () => {
  load(true).catch(() => setError(addForm, t('error.network')));
});

me.then((session) => {
  // Only a role that may change content sees the form (the API refuses the others with 403 all the same).
  (addForm.closest('.card') as HTMLElement).hidden = !session.permissions.includes('content.write');
  return load(false);
}).catch(() => setError(addForm, t('error.network')));
