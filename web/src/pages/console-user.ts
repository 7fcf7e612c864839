import { consoleAnswerText } from '../console/answers.js';
import { askReason, type Me, post, signedIn } from '../console/staff.js';
import { drawParts, lines, renameForm, type UserParts } from '../console/user-parts.js';
import { api } from '../lib/api.js';
import { t } from '../lib/i18n.js';

/**
 * /console/users/:id: a user's page, masked. "Show" asks a reason and shows one field in full; the actions
 * and the rename form (each with a reason) are drawn only for a role that may take them (users.act).
 */
const id = decodeURIComponent(location.pathname.split('/').pop() ?? '');
const profile = document.getElementById('profile') as HTMLElement;
const signIn = document.getElementById('sign-in') as HTMLElement;
const sessions = document.getElementById('sessions') as HTMLElement;
const activity = document.getElementById('activity') as HTMLElement;
const actionsCard = document.getElementById('actions-card') as HTMLElement;
const actions = document.getElementById('actions') as HTMLElement;
const actionStatus = document.getElementById('action-status') as HTMLElement;
const actionError = document.getElementById('action-error') as HTMLElement;
const profileError = profile.parentElement?.querySelector('.error') as HTMLElement;

type Data = Record<string, unknown>;
interface Overview extends UserParts {
  profile: Data;
  sign_in: Data;
  sessions: { id: string; name: string | null; last_used_at: string | null }[];
  security_activity: { type: string; at: string }[];
}

const ACTIONS = [
  'disable',
  'enable',
  'revoke-sessions',
  'reset-second-factor',
  'resend-verification',
  'schedule-deletion',
  'cancel-deletion',
] as const;
const REVEALABLE = new Set(['email', 'phone']);

function entry(list: HTMLElement, name: string, value: unknown, me: Me): void {
  const dt = document.createElement('dt');
  const label = `console.user.field.${name}`;
  // A part the page has no words for yet (a new field of the API) shows by its API name.
  dt.textContent = t(label) === label ? name : t(label);
  const dd = document.createElement('dd');
  const text = document.createElement('span');
  text.textContent = value === null || value === undefined ? '—' : String(value);
  dd.append(text);
  if (REVEALABLE.has(name) && me.permissions.includes('users.unmask')) {
    const show = document.createElement('button');
    show.type = 'button';
    show.textContent = t('console.user.show');
    show.setAttribute('aria-label', `${t('console.user.show')}: ${dt.textContent}`);
    show.addEventListener('click', async () => {
      const reason = await askReason();
      if (reason === undefined) return show.focus();
      const answer = await post<{ value: string | null }>(me, `/users/${encodeURIComponent(id)}/reveal`, {
        field: name,
        reason,
      });
      if (answer.status !== 200) {
        profileError.textContent = consoleAnswerText(answer);
        return show.focus();
      }
      text.textContent = answer.body.data.value ?? '—';
      show.remove();
    });
    dd.append(' ', show);
  }
  list.append(dt, dd);
}

async function load(me: Me): Promise<void> {
  const answer = await api<Overview>(`/users/${encodeURIComponent(id)}`);
  if (answer.status !== 200) {
    profileError.textContent = consoleAnswerText(answer);
    return;
  }
  const page = answer.body.data;
  profile.replaceChildren();
  for (const [name, value] of Object.entries(page.profile)) entry(profile, name, value, me);
  signIn.replaceChildren();
  for (const [name, value] of Object.entries(page.sign_in)) {
    // Providers by name (`kakao, apple`), passkeys by how many: the list of them is the user's own page's.
    const shown =
      name === 'providers'
        ? (value as { provider: string }[]).map((link) => link.provider).join(', ') || null
        : value;
    entry(signIn, name, Array.isArray(shown) ? shown.length : shown, me);
  }
  lines(
    sessions,
    page.sessions.map((s) => `${s.name ?? s.id} · ${s.last_used_at ?? '—'}`),
    false,
  );
  if (me.permissions.includes('users.act')) {
    page.sessions.forEach((session, index) => {
      revokeButton(me, session.id, sessions.children[index]);
    });
  }
  lines(
    activity,
    page.security_activity.map((event) => `${event.at} · ${event.type}`),
  );
  drawParts(page);
}

/** "End this session" beside one session: a reason, then the one session's revoke. */
function revokeButton(me: Me, sessionId: string, item: Element | undefined): void {
  const button = document.createElement('button');
  button.type = 'button';
  button.textContent = t('console.user.revoke');
  button.addEventListener('click', async () => {
    actionStatus.textContent = '';
    actionError.textContent = '';
    const reason = await askReason();
    if (reason === undefined) return button.focus();
    const path = `/users/${encodeURIComponent(id)}/sessions/${encodeURIComponent(sessionId)}/revoke`;
    const answer = await post(me, path, { reason });
    if (answer.status !== 200) actionError.textContent = consoleAnswerText(answer);
    else {
      actionStatus.textContent = t('console.user.done');
      await load(me);
    }
  });
  item?.append(' ', button);
}

function drawActions(me: Me): void {
  if (!me.permissions.includes('users.act')) return;
  for (const action of ACTIONS) {
    const button = document.createElement('button');
    button.type = 'button';
    button.textContent = t(`console.action.${action}`);
    button.addEventListener('click', async () => {
      actionStatus.textContent = '';
      actionError.textContent = '';
      const reason = await askReason();
      if (reason === undefined) return button.focus();
      const answer = await post(me, `/users/${encodeURIComponent(id)}/${action}`, { reason });
      if (answer.status !== 200) actionError.textContent = consoleAnswerText(answer);
      else {
        actionStatus.textContent = t('console.user.done');
        await load(me);
      }
      button.focus();
    });
    actions.append(button, ' ');
  }
  actionsCard.hidden = false;
}

signedIn()
  .then(async (me) => {
    drawActions(me);
    if (me.permissions.includes('users.act')) renameForm(me, id, () => load(me));
    await load(me);
  })
  .catch(() => {
    profileError.textContent = t('error.network');
  });
