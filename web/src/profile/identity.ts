import { api } from '../lib/api.js';
import { clearMessages, errorText, onSubmit, setError, setStatus } from '../lib/form.js';
import { t } from '../lib/i18n.js';
import { portOneReturn, runPortOneWindow, type StartedVerification } from '../lib/portone.js';
import { onUser, toLogin } from './user.js';

const PAGE = 'profile';
const element = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;

/**
 * The identity card: the account's state from user/get, and verifying through PortOne's window (always
 * @portone/browser-sdk's own call; the browser tests replace PortOne's script at the network instead).
 */
export function identitySection(): void {
  const state = element<HTMLElement>('identity-state');
  const form = element<HTMLFormElement>('identity');
  // No card where PortOne is not configured (src/web/page-identity.ts).
  if (!form) return;
  let userShown: () => void = () => {};
  const userLoaded = new Promise<void>((resolve) => {
    userShown = resolve;
  });

  function show(verified: boolean, adult: boolean | null): void {
    const age = adult === null ? '' : ` ${t(adult ? 'identity.adult' : 'identity.minor')}`;
    state.textContent = verified ? `${t('identity.verified')}${age}` : t('identity.not_verified');
  }

  onUser((user) => {
    show(user.identity_verified, user.adult);
    userShown();
  });

  /** The service asks PortOne about the id: only its answer counts. */
  async function verify(id: string): Promise<void> {
    const verified = await api<{ identity: { adult: boolean } }>('/user/identity/verify', {
      method: 'POST',
      body: { identity_verification_id: id },
    });
    if (verified.status === 401) return toLogin();
    if (verified.status === 409) return setError(form, t('identity.in_use'));
    if (verified.status === 422) return setError(form, t('identity.cancelled'));
    if (verified.status !== 200) return setError(form, errorText(verified));
    show(true, verified.body.data.identity.adult);
    setStatus(form, t('identity.done'));
  }

  onSubmit(form, async () => {
    clearMessages(form);
    const started = await api<StartedVerification>('/user/identity/start', { method: 'POST' });
    if (started.status === 401) return toLogin();
    if (started.status === 503 && (started.body.data as { status?: string }).status) {
      form.querySelector('button')?.setAttribute('hidden', '');
      return setError(form, t('identity.unavailable'));
    }
    if (started.status !== 200) return setError(form, errorText(started));
    const outcome = await runPortOneWindow(PAGE, started.body.data, {});
    if (outcome === 'failed') return setError(form, t('identity.window_failed'));
    if (outcome === 'closed') return setError(form, t('identity.cancelled'));
    await verify(started.body.data.identity_verification_id);
  });

  // Back from PortOne's page (a phone): finished once the account is shown, so its state is not overwritten.
  const returned = portOneReturn(PAGE);
  if (returned) {
    void userLoaded.then(() =>
      returned.completed
        ? verify(returned.id).catch(() => setError(form, t('error.network')))
        : setError(form, t('identity.cancelled')),
    );
  }
}
