import { consoleAnswerText } from '../console/answers.js';
import { showPermittedLinks } from '../console/staff.js';
import { api } from '../lib/api.js';
import { onSubmit, setError } from '../lib/form.js';
import { t } from '../lib/i18n.js';

/** The console's home: who is signed in (GET /admin/v1/me), and signing out. Signed out: the sign-in page. */
const who = document.getElementById('who') as HTMLElement;
const signOut = document.getElementById('sign-out') as HTMLFormElement;

interface Me {
  staff: { id: string; email: string; role: string };
  permissions: string[];
  csrf_token: string;
}

/** The session's CSRF token: every POST of this session sends it back (docs/console.md). */
let csrf = '';

async function start(): Promise<void> {
  const answer = await api<Me>('/me');
  if (answer.status === 401) {
    location.replace('/console/login');
    return;
  }
  if (answer.status !== 200) return setError(signOut, consoleAnswerText(answer));
  const me = answer.body.data;
  csrf = me.csrf_token;
  (document.getElementById('who-email') as HTMLElement).textContent = me.staff.email;
  (document.getElementById('who-role') as HTMLElement).textContent = me.staff.role;
  (document.getElementById('who-permissions') as HTMLElement).textContent = me.permissions.join(', ');
  who.hidden = false;
  showPermittedLinks(me.permissions);
}

onSubmit(signOut, async () => {
  const answer = await api('/auth/logout', { method: 'POST', headers: { 'x-csrf-token': csrf } });
  if (answer.status !== 200 && answer.status !== 401) return setError(signOut, consoleAnswerText(answer));
  location.assign('/console/login');
});

start().catch(() => setError(signOut, t('error.network')));
