import { consoleAnswerText } from '../console/answers.js';
import { askReason, type Me, post, row, signedIn } from '../console/staff.js';
import { api } from '../lib/api.js';
import { clearMessages, onSubmit, setError, setStatus, showValidationErrors } from '../lib/form.js';
import { t } from '../lib/i18n.js';

/** /console/posts: an author's posts (hidden ones too) a keyset page at a time, or one post; hide, delete. */
const form = document.getElementById('post-search') as HTMLFormElement;
const table = document.getElementById('posts') as HTMLElement;
const body = document.querySelector('#posts tbody') as HTMLElement;
const none = document.getElementById('posts-none') as HTMLElement;
const next = document.getElementById('next') as HTMLButtonElement;

interface Post {
  id: string;
  author: { id: string; username: string };
  text: string;
  like_count: number;
  created_at: string;
  author_hidden: boolean;
  hidden_at: string | null;
  hidden_reason: string | null;
}

let cursor: string | null = null;
const me = signedIn();

const stateOf = (item: Post) =>
  item.hidden_at
    ? `${t('console.posts.hidden')}: ${item.hidden_reason ?? ''}`
    : t(item.author_hidden ? 'console.posts.author_hidden' : 'console.posts.shown');

/** A button that asks the reason, then POSTs the action; the row shows the answer. */
function actionButton(session: Me, item: Post, action: 'hide' | 'unhide' | 'delete', tr: () => Element) {
  const button = document.createElement('button');
  button.type = 'button';
  button.textContent = t(`console.posts.${action}`);
  button.setAttribute('aria-label', `${t(`console.posts.${action}`)}: ${item.text.slice(0, 40)}`);
  button.addEventListener('click', async () => {
    clearMessages(form);
    const reason = await askReason();
    if (reason === undefined) return button.focus();
    const answer = await post<{ post: Post }>(session, `/posts/${item.id}/${action}`, { reason });
    if (answer.status !== 200) return setError(form, consoleAnswerText(answer));
    if (action === 'delete') {
      tr().remove();
      setStatus(form, t('console.posts.deleted'));
    } else {
      const fresh = draw(session, answer.body.data.post);
      tr().replaceWith(fresh);
      setStatus(form, t('console.user.done'));
      fresh.querySelector('button')?.focus();
    }
  });
  return button;
}

function draw(session: Me, item: Post): HTMLTableRowElement {
  const author = document.createElement('a');
  author.href = `/console/users/${encodeURIComponent(item.author.id)}`;
  author.textContent = item.author.username;
  const actions = document.createElement('span');
  const tr = row(table, [
    item.created_at.slice(0, 10),
    author,
    item.text,
    String(item.like_count),
    stateOf(item),
    actions,
  ]);
  if (session.permissions.includes('content.write')) {
    const hidden = item.hidden_at !== null;
    actions.append(
      actionButton(session, item, hidden ? 'unhide' : 'hide', () => tr),
      ' ',
    );
    actions.append(actionButton(session, item, 'delete', () => tr));
  }
  return tr;
}

async function load(append: boolean): Promise<void> {
  clearMessages(form);
  const data = new FormData(form);
  const query = String(data.get('query')).trim();
  const byPost = data.get('by') === 'post';
  const session = await me;
  let posts: Post[];
  if (byPost) {
    const answer = await api<{ post: Post }>(`/posts/${encodeURIComponent(query)}`);
    posts = answer.status === 200 ? [answer.body.data.post] : [];
    if (answer.status !== 200 && answer.status !== 404) return setError(form, consoleAnswerText(answer));
    cursor = null;
  } else {
    const params = new URLSearchParams({ author: query });
    if (append && cursor) params.set('cursor', cursor);
    const answer = await api<{ posts: Post[]; next_cursor: string | null }>(`/posts?${params}`);
    if (answer.status === 422) return showValidationErrors(form, answer.body.data);
    if (answer.status !== 200 && answer.status !== 404) return setError(form, consoleAnswerText(answer));
    posts = answer.status === 200 ? answer.body.data.posts : [];
    cursor = answer.status === 200 ? answer.body.data.next_cursor : null;
  }
  if (!append) body.replaceChildren();
  for (const item of posts) body.append(draw(session, item));
  next.hidden = cursor === null;
  none.hidden = body.childElementCount > 0;
}

onSubmit(form, () => load(false));
next.addEventListener('click', () => {
  load(true).catch(() => setError(form, t('error.network')));
});
me.catch(() => setError(form, t('error.network')));
