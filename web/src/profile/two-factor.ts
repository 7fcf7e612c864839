import { api } from '../lib/api.js';
import { allPageSentences } from '../lib/field-errors.js';
import { clearMessages, errorText, onSubmit, setError, setStatus } from '../lib/form.js';
import { t } from '../lib/i18n.js';
import { askForProof, type Reauth } from './reauth.js';
import { clearInputs, inputValue, showMappedErrors } from './security-form.js';
import { toLogin } from './user.js';

interface Status {
  totp: { enabled: boolean; created_at: string | null };
  recovery_codes_left: number;
}

interface Setup {
  secret: string;
  otpauth_url: string;
  qr_svg: string;
}

const element = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;

/** A base32 secret in groups of four, as people copy it into an app by hand. */
const inGroups = (secret: string) => secret.replace(/(.{4})(?=.)/g, '$1 ');

/**
 * The authenticator-app second factor: set up (the owner's proof → QR code and secret), turned on with a
 * first code (→ the recovery codes, shown this once), turned off, recovery codes replaced.
 */
export function twoFactorSection(reauth: Reauth): { load(): Promise<void> } {
  const state = element<HTMLElement>('totp-state');
  const setupForm = element<HTMLFormElement>('totp-setup');
  const enableForm = element<HTMLFormElement>('totp-enable');
  const manageForm = element<HTMLFormElement>('totp-manage');
  const recovery = element<HTMLElement>('recovery-codes');
  let downloadUrl = '';

  function show(status: Status): void {
    const on = status.totp.enabled;
    state.textContent = on
      ? `${t('security.totp_on')} ${t('security.codes_left').replace('{count}', String(status.recovery_codes_left))}`
      : t('security.totp_off');
    // A setup under way (the QR code shown) keeps its place: the button that started it stays away.
    setupForm.hidden = on || !enableForm.hidden;
    manageForm.hidden = !on;
    reauth.secondFactor(on);
    if (on) enableForm.hidden = true;
  }

  /** Shown once: the API keeps only digests. A download is a Blob URL (no data: navigation, no server copy). */
  function showRecoveryCodes(codes: string[]): void {
    const items = codes.map((code) => {
      const item = document.createElement('li');
      item.textContent = code;
      return item;
    });
    element<HTMLOListElement>('recovery-list').replaceChildren(...items);
    if (downloadUrl) URL.revokeObjectURL(downloadUrl);
    downloadUrl = URL.createObjectURL(new Blob([`${codes.join('\n')}\n`], { type: 'text/plain' }));
    element<HTMLAnchorElement>('recovery-download').href = downloadUrl;
    element<HTMLElement>('recovery-status').textContent = '';
    recovery.hidden = false;
    recovery.scrollIntoView({ block: 'nearest' });
  }

  element<HTMLButtonElement>('recovery-copy').addEventListener('click', () => {
    const text = Array.from(recovery.querySelectorAll('li'), (item) => item.textContent).join('\n');
    navigator.clipboard.writeText(text).then(
      () => {
        element<HTMLElement>('recovery-status').textContent = t('status.copied');
      },
      () => {
        element<HTMLElement>('recovery-status').textContent = t('error.generic');
      },
    );
  });

  async function load(): Promise<void> {
    const answer = await api<Status>('/user/2fa');
    if (answer.status === 401) return toLogin();
    if (answer.status === 200) show(answer.body.data);
  }

  onSubmit(setupForm, async () => {
    clearMessages(setupForm);
    const proof = await reauth.proof();
    if (!proof) {
      reauth.resume(() => setupForm.requestSubmit());
      return askForProof(setupForm);
    }
    const answer = await api<Setup & Record<string, unknown>>('/user/2fa/totp/setup', {
      method: 'POST',
      body: proof,
    });
    if (answer.status === 401) return toLogin();
    if (answer.status === 422) {
      const data: Record<string, unknown> = answer.body.data;
      return setError(setupForm, reauth.refused(data) ?? allPageSentences(data).join(' '));
    }
    if (answer.status !== 200) return setError(setupForm, errorText(answer));
    // The SVG is the API's, but still never parsed into this document: as an <img> it cannot run script.
    element<HTMLImageElement>('totp-qr').src =
      `data:image/svg+xml;charset=utf-8,${encodeURIComponent(answer.body.data.qr_svg)}`;
    const secret = element<HTMLElement>('totp-secret');
    secret.textContent = inGroups(answer.body.data.secret);
    secret.dataset.secret = answer.body.data.secret;
    // The QR code replaces the button that asked for it.
    setupForm.hidden = true;
    enableForm.hidden = false;
    element<HTMLInputElement>('totp_code').focus();
  });

  onSubmit(enableForm, async () => {
    clearMessages(enableForm);
    const answer = await api<{ recovery_codes: string[] }>('/user/2fa/totp/enable', {
      method: 'POST',
      body: { code: inputValue('totp_code').trim() },
    });
    if (answer.status === 401) return toLogin();
    if (answer.status === 422) return showMappedErrors(enableForm, answer.body.data, { code: 'totp_code' });
    if (answer.status !== 200) return setError(enableForm, errorText(answer));
    clearInputs('totp_code');
    enableForm.hidden = true;
    showRecoveryCodes(answer.body.data.recovery_codes);
    setStatus(manageForm, t('status.totp_enabled'));
    await load();
  });

  // Two actions on the same proofs: the button pressed says which.
  manageForm.addEventListener('submit', (event) => {
    event.preventDefault();
    const action =
      (event.submitter as HTMLButtonElement | null)?.value === 'regenerate' ? 'regenerate' : 'disable';
    manage(action).catch(() => setError(manageForm, t('error.network')));
  });

  async function manage(action: 'disable' | 'regenerate'): Promise<void> {
    clearMessages(manageForm);
    const entry = inputValue('manage_code').trim();
    const proof =
      action === 'regenerate' || /^\d{6}$/.test(entry) ? { code: entry } : { recovery_code: entry };
    const path = action === 'disable' ? '/user/2fa/disable' : '/user/2fa/recovery-codes/regenerate';
    const owner = await reauth.proof();
    if (!owner) return askForProof(manageForm);
    const answer = await api<Status & { recovery_codes: string[] } & Record<string, unknown>>(path, {
      method: 'POST',
      body: { ...owner, ...proof },
    });
    if (answer.status === 401) return toLogin();
    if (answer.status === 422) {
      const data: Record<string, unknown> = answer.body.data;
      // The code sent here is this form's own (the factor to turn off), never the confirmation's.
      const aboutProof = reauth.refused(data, { own: ['code'] });
      if (aboutProof) return setError(manageForm, aboutProof);
      return showMappedErrors(manageForm, data, { code: 'manage_code', recovery_code: 'manage_code' });
    }
    if (answer.status !== 200) return setError(manageForm, errorText(answer));
    clearInputs('manage_code');
    if (action === 'regenerate') showRecoveryCodes(answer.body.data.recovery_codes);
    else {
      recovery.hidden = true;
      setStatus(setupForm, t('status.totp_disabled'));
    }
    await load();
  }

  return { load };
}
