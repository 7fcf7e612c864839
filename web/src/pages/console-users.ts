import { consoleAnswerText } from '../console/answers.js';
import { askReason, row, signedIn } from '../console/staff.js';
import { api } from '../lib/api.js';
import { clearMessages, onSubmit, setError, showValidationErrors } from '../lib/form.js';
import { t } from '../lib/i18n.js';

/** /console/users: the search, a keyset page at a time, masked; the export for who may. */
const form = document.getElementById('user-search') as HTMLFormElement;
const table = document.getElementById('users') as HTMLElement;
const body = document.querySelector('#users tbody') as HTMLElement;
const none = document.getElementById('users-none') as HTMLElement;
const next = document.getElementById('next') as HTMLButtonElement;
const exportButton = document.getElementById('export') as HTMLButtonElement;

interface Item {
  id: string;
  email: string;
  username: string;
  disabled_at: string | null;
  created_at: string;
}

let cursor: string | null = null;
const me = signedIn();

function search(): Record<string, string> {
  const data = new FormData(form);
  return {
    field: String(data.get('field')),
    mode: String(data.get('mode')),
    query: String(data.get('query')),
  };
}

async function load(append: boolean): Promise<void> {
  clearMessages(form);
  const query = new URLSearchParams(search());
  if (append && cursor) query.set('cursor', cursor);
  const answer = await api<{ users: Item[]; next_cursor: string | null }>(`/users/search?${query}`);
  if (answer.status === 422) return showValidationErrors(form, answer.body.data);
  if (answer.status !== 200) return setError(form, consoleAnswerText(answer));
  if (!append) body.replaceChildren();
  for (const user of answer.body.data.users) {
    const link = document.createElement('a');
    link.href = `/console/users/${encodeURIComponent(user.id)}`;
    link.textContent = user.email;
    const state = t(user.disabled_at ? 'console.state.disabled' : 'console.state.active');
    body.append(row(table, [link, user.username, state, user.created_at.slice(0, 10)]));
  }
  cursor = answer.body.data.next_cursor;
  next.hidden = cursor === null;
  none.hidden = body.childElementCount > 0;
}

onSubmit(form, () => load(false));
next.addEventListener('click', () => {
  load(true).catch(() => setError(form, t('error.network')));
});

exportButton.addEventListener('click', async () => {
  const reason = await askReason();
  if (reason === undefined) return;
  const session = await me;
  const response = await fetch('/admin/v1/users/export', {
    method: 'POST',
    credentials: 'same-origin',
    headers: { 'content-type': 'application/json', 'x-csrf-token': session.csrf_token },
    body: JSON.stringify({ ...search(), reason }),
  });
  if (!response.ok) {
    const answer = { status: response.status, body: await response.json() };
    if (response.status === 422) return showValidationErrors(form, answer.body.data);
    return setError(form, consoleAnswerText(answer));
  }
  const name = /filename="([^"]+)"/.exec(response.headers.get('content-disposition') ?? '')?.[1];
  const link = document.createElement('a');
  link.href = URL.createObjectURL(await response.blob());
  link.download = name ?? 'users.csv';
  link.click();
  URL.revokeObjectURL(link.href);
});

me.then((session) => {
  exportButton.hidden = !session.permissions.includes('users.export');
}).catch(() => setError(form, t('error.network')));
