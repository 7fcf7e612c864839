import { consoleAnswerText } from '../console/answers.js';
import { row, signedIn } from '../console/staff.js';
import { api } from '../lib/api.js';
import { clearMessages, onSubmit, setError, setStatus, showValidationErrors } from '../lib/form.js';
import { t } from '../lib/i18n.js';

/** /console/inspirers: the inspirers by username a keyset page at a time (masked); adding and removing. */
const addForm = document.getElementById('inspirer-add') as HTMLFormElement;
const table = document.getElementById('inspirers') as HTMLElement;
const body = document.querySelector('#inspirers tbody') as HTMLElement;
const none = document.getElementById('inspirers-none') as HTMLElement;
const next = document.getElementById('next') as HTMLButtonElement;
const listCard = table.closest('.card') as HTMLElement;

interface Inspirer {
  id: string;
  email: string;
  username: string;
  disabled_at: string | null;
}

let cursor: string | null = null;
const me = signedIn();

const say = (text: string) => {
  (listCard.querySelector('.status') as HTMLElement).textContent = text;
};

async function post(path: string, data: Record<string, unknown>) {
  const session = await me;
  return api(path, { method: 'POST', body: data, headers: { 'x-csrf-token': session.csrf_token } });
}

async function load(append: boolean): Promise<void> {
  const session = await me;
  const query = new URLSearchParams({ limit: '20' });
  if (append && cursor) query.set('cursor', cursor);
  const answer = await api<{ inspirers: Inspirer[]; next_cursor: string | null }>(`/inspirers?${query}`);
  if (answer.status !== 200) return say(consoleAnswerText(answer));
  if (!append) body.replaceChildren();
  for (const user of answer.body.data.inspirers) {
    const remove = document.createElement('button');
    remove.type = 'button';
    remove.textContent = t('console.inspirers.remove');
    remove.hidden = !session.permissions.includes('content.write');
    remove.addEventListener('click', async () => {
      const done = await post('/inspirers/remove', { user: user.id });
      if (done.status !== 200) return say(consoleAnswerText(done));
      say(t('console.inspirers.removed'));
      await load(false);
    });
    const state = t(user.disabled_at ? 'console.state.disabled' : 'console.state.active');
    body.append(row(table, [user.username, user.email, state, remove]));
  }
  cursor = answer.body.data.next_cursor;
  next.hidden = cursor === null;
  none.hidden = body.childElementCount > 0;
}

onSubmit(addForm, async () => {
  clearMessages(addForm);
  const answer = await post('/inspirers', { user: String(new FormData(addForm).get('user') ?? '') });
  if (answer.status === 422) return showValidationErrors(addForm, answer.body.data);
  if (answer.status !== 200) return setError(addForm, consoleAnswerText(answer));
  addForm.reset();
  setStatus(addForm, t('console.inspirers.added'));
  await load(false);
});

next.addEventListener('click', () => {
  load(true).catch(() => say(t('error.network')));
});

me.then((session) => {
  (addForm.closest('.card') as HTMLElement).hidden = !session.permissions.includes('content.write');
  return load(false);
}).catch(() => setError(addForm, t('error.network')));
