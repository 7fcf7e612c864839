import { api } from '../lib/api.js';
import { when } from '../lib/dates.js';
import { deviceInWords } from '../lib/devices.js';
import { errorText } from '../lib/form.js';
import { t } from '../lib/i18n.js';
import { toLogin } from './user.js';

/** One session as user/tokens lists it. */
interface Session {
  id: string;
  created_at: string;
  last_used_at: string | null;
  /** The server's reading of the User-Agent (bowser), e.g. `Chrome 120 · macOS Catalina`. */
  device_name: string | null;
  current: boolean;
}

function sessionItem(session: Session, revoke: (id: string) => void): HTMLLIElement {
  const item = document.createElement('li');
  const text = document.createElement('div');
  text.className = 'session-text';
  // textContent, never innerHTML: the name comes from whatever User-Agent the client sent.
  const name = document.createElement('strong');
  name.className = 'device';
  name.textContent = session.device_name ? deviceInWords(session.device_name) : t('profile.unknown_agent');
  const details = document.createElement('span');
  details.className = 'meta';
  details.textContent = `${t('profile.created')} ${when(session.created_at)} · ${t('profile.last_used')} ${when(session.last_used_at)}`;
  text.append(name, details);
  item.append(text);
  if (session.current) {
    const mark = document.createElement('span');
    mark.className = 'badge';
    mark.textContent = t('profile.current');
    item.append(mark);
  } else {
    const button = document.createElement('button');
    button.type = 'button';
    button.className = 'small';
    button.textContent = t('action.revoke');
    button.dataset.sessionId = session.id;
    button.setAttribute('aria-label', `${t('action.revoke')}: ${name.textContent} · ${details.textContent}`);
    button.addEventListener('click', () => revoke(session.id));
    item.append(button);
  }
  return item;
}

/** The signed-in sessions, each with its device name, and a button that revokes any but this one. */
export function sessionsSection(): { load(): Promise<void> } {
  const list = document.getElementById('sessions') as HTMLUListElement;
  const status = document.getElementById('sessions-status') as HTMLElement;

  async function load(): Promise<void> {
    const answer = await api<{ tokens: Session[] }>('/user/tokens');
    if (answer.status === 401) return toLogin();
    if (answer.status === 200) {
      list.replaceChildren(
        ...answer.body.data.tokens.map((session) =>
          sessionItem(session, (id) => {
            void revoke(id);
          }),
        ),
      );
    }
  }

  async function revoke(id: string): Promise<void> {
    const answer = await api(`/user/tokens/${encodeURIComponent(id)}/revoke`, { method: 'POST' });
    if (answer.status === 401) return toLogin();
    status.textContent = answer.status === 200 ? t('status.revoked') : errorText(answer);
    await load();
  }

  return { load };
}
