import { api } from '../lib/api.js';
import {
  clearMessages,
  errorText,
  onSubmit,
  setError,
  setStatus,
  showValidationErrors,
} from '../lib/form.js';
import { t } from '../lib/i18n.js';
import { chosenFile, previewPicture } from '../lib/preview.js';

interface User {
  email: string;
  username: string;
  slug: string;
  gender: number;
  bio: string | null;
  profile_picture: { url: string; thumbnails: Record<string, string> } | null;
}

interface Session {
  id: string;
  created_at: string;
  last_used_at: string | null;
  user_agent: string | null;
  current: boolean;
}

const profileForm = document.getElementById('profile') as HTMLFormElement;
const pictureForm = document.getElementById('picture') as HTMLFormElement;
const pictureInput = document.getElementById('profile_picture') as HTMLInputElement;
const sessionList = document.getElementById('sessions') as HTMLUListElement;
const sessionStatus = document.getElementById('sessions-status') as HTMLElement;
previewPicture(pictureInput, document.getElementById('preview') as HTMLImageElement);

const input = (id: string) => document.getElementById(id) as HTMLInputElement;

function toLogin(): void {
  location.replace('/login');
}

function showUser(user: User): void {
  input('email').value = user.email;
  input('username').value = user.username;
  input('slug').value = user.slug;
  (document.getElementById('bio') as HTMLTextAreaElement).value = user.bio ?? '';
  for (const radio of Array.from(document.querySelectorAll<HTMLInputElement>('input[name="gender"]'))) {
    radio.checked = radio.value === String(user.gender);
  }
  const image = document.getElementById('current-picture') as HTMLImageElement;
  const url = user.profile_picture?.thumbnails['256'] ?? user.profile_picture?.url;
  image.hidden = !url;
  if (url) image.src = url;
  (document.getElementById('no-picture') as HTMLElement).hidden = Boolean(url);
}

const when = (iso: string | null) =>
  iso ? new Date(iso).toLocaleString(document.documentElement.lang) : '–';

function showSessions(sessions: Session[]): void {
  sessionList.replaceChildren(
    ...sessions.map((session) => {
      const item = document.createElement('li');
      const text = document.createElement('span');
      // textContent, never innerHTML: a user agent string is whatever the client sent.
      text.textContent = `${session.user_agent ?? t('profile.unknown_agent')} · ${t('profile.created')} ${when(session.created_at)} · ${t('profile.last_used')} ${when(session.last_used_at)}`;
      item.append(text);
      if (session.current) {
        const mark = document.createElement('strong');
        mark.textContent = ` (${t('profile.current')})`;
        item.append(mark);
      } else {
        const button = document.createElement('button');
        button.type = 'button';
        button.textContent = t('action.revoke');
        button.dataset.sessionId = session.id;
        button.setAttribute('aria-label', `${t('action.revoke')}: ${text.textContent}`);
        button.addEventListener('click', () => {
          void revoke(session.id);
        });
        item.append(' ', button);
      }
      return item;
    }),
  );
}

async function loadSessions(): Promise<void> {
  const answer = await api<{ tokens: Session[] }>('/user/tokens');
  if (answer.status === 401) return toLogin();
  if (answer.status === 200) showSessions(answer.body.data.tokens);
}

async function revoke(id: string): Promise<void> {
  const answer = await api(`/user/tokens/${encodeURIComponent(id)}/revoke`, { method: 'POST' });
  if (answer.status === 401) return toLogin();
  sessionStatus.textContent = answer.status === 200 ? t('status.revoked') : errorText(answer.body);
  await loadSessions();
}

async function load(): Promise<void> {
  const answer = await api<{ user: User }>('/user/get');
  if (answer.status === 401) return toLogin();
  if (answer.status !== 200) return setError(profileForm, errorText(answer.body));
  showUser(answer.body.data.user);
  await loadSessions();
}

onSubmit(profileForm, async () => {
  clearMessages(profileForm);
  const values = Object.fromEntries(new FormData(profileForm));
  const answer = await api<{ user: User }>('/user/update', {
    method: 'POST',
    body: { username: values.username, slug: values.slug, gender: values.gender, bio: values.bio },
  });
  if (answer.status === 401) return toLogin();
  if (answer.status === 422) return showValidationErrors(profileForm, answer.body.data);
  if (answer.status !== 200) return setError(profileForm, errorText(answer.body));
  showUser(answer.body.data.user);
  setStatus(profileForm, t('status.saved'));
});

onSubmit(pictureForm, async () => {
  clearMessages(pictureForm);
  const file = chosenFile(pictureInput);
  const body = new FormData();
  if (file) body.set('profile_picture', file);
  const answer = await api<{ user: User }>('/user/profile-image/update', { method: 'POST', body });
  if (answer.status === 401) return toLogin();
  if (answer.status === 422) return showValidationErrors(pictureForm, answer.body.data);
  if (answer.status !== 200) return setError(pictureForm, errorText(answer.body));
  showUser(answer.body.data.user);
  setStatus(pictureForm, t('status.picture_saved'));
});

const signOut = document.getElementById('signout') as HTMLFormElement;
onSubmit(signOut, async () => {
  await api('/web/session/end', { method: 'POST' });
  location.assign('/login');
});

load().catch(() => setError(profileForm, t('error.network')));
