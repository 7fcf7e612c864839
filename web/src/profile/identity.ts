import { api } from '../lib/api.js';
import { clearMessages, errorText, onSubmit, setError, setStatus } from '../lib/form.js';
import { t } from '../lib/i18n.js';
import type { IdentityVerificationRequest, IdentityVerificationResponse } from '../vendor/portone/v2.js';
import { onUser, toLogin } from './user.js';

interface Started {
  identity_verification_id: string;
  store_id: string;
  channel_key: string;
}

/**
 * The one call that leaves for PortOne: its verification window. The browser tests put their own in
 * `window.accountsPortOne` (the documented test seam, docs/identity.md): everything else — start, verify,
 * the service asking (a fake) PortOne — runs as in production.
 */
type PortOneWindow = (
  request: IdentityVerificationRequest,
) => Promise<IdentityVerificationResponse | undefined>;

async function portOneWindow(): Promise<PortOneWindow> {
  const seam = (window as unknown as { accountsPortOne?: { requestIdentityVerification?: PortOneWindow } })
    .accountsPortOne?.requestIdentityVerification;
  // Loaded when first needed: most visits to the profile never verify.
  return seam ?? (await import('../vendor/portone/v2.js')).requestIdentityVerification;
}

const element = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;

/** The identity card: the account's state from user/get, and verifying through PortOne's window. */
export function identitySection(): void {
  const state = element<HTMLElement>('identity-state');
  const form = element<HTMLFormElement>('identity');

  function show(verified: boolean, adult: boolean | null): void {
    const age = adult === null ? '' : ` ${t(adult ? 'identity.adult' : 'identity.minor')}`;
    state.textContent = verified ? `${t('identity.verified')}${age}` : t('identity.not_verified');
  }

  onUser((user) => show(user.identity_verified, user.adult));

  onSubmit(form, async () => {
    clearMessages(form);
    const started = await api<Started>('/user/identity/start', { method: 'POST' });
    if (started.status === 401) return toLogin();
    if (started.status === 503 && (started.body.data as { status?: string }).status) {
      form.querySelector('button')?.setAttribute('hidden', '');
      return setError(form, t('identity.unavailable'));
    }
    if (started.status !== 200) return setError(form, errorText(started));
    const { identity_verification_id: id, store_id: storeId, channel_key: channelKey } = started.body.data;
    const request = await portOneWindow();
    const outcome = await request({ storeId, channelKey, identityVerificationId: id });
    if (!outcome || outcome.code !== undefined) return setError(form, t('identity.cancelled'));
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
  });
}
