import { fieldMessages } from '../lib/answers.js';
import { api, REAUTH_UNTIL_KEY } from '../lib/api.js';
import { clearMessages, errorText, onSubmit, setError, setStatus, showField } from '../lib/form.js';
import { t } from '../lib/i18n.js';
import { offerPasskeys, passkeyFailure } from '../lib/passkey-support.js';
import { startAuthentication } from '../vendor/simplewebauthn/index.js';
import { toLogin } from './user.js';

/** The fields a request sends to prove the owner is at the keyboard (none inside an open window). */
export type Proof = Record<string, unknown>;

/** A sensitive request's proof fields: a 422 naming one of them is about the confirmation, not the change. */
const PROOF_FIELDS = ['current_password', 'passkey_response', 'passkey_challenge_id'];
/** user/reauth takes the same proof fields as every sensitive request. */
const REAUTH_FIELDS = PROOF_FIELDS;

export interface Reauth {
  /** The proof for a sensitive request, confirming first if a password is typed; undefined when none is at hand. */
  proof(): Promise<Proof | undefined>;
  /** A sensitive request's 422: the proof's messages go under the panel's field; the text for the request's own line. */
  refused(data: Record<string, unknown>): string | undefined;
  /** Shows the panel (above a sensitive section, or while the email is being changed) or hides it. */
  show(visible: boolean): void;
}

type PasskeyOptions = Parameters<typeof startAuthentication>[0]['optionsJSON'];

/**
 * Re-authentication once per window: confirming the password (or a passkey) at user/reauth opens a window
 * for this session in which the sensitive changes ask nothing more; the panel says until when. A server
 * without user/reauth (404) gets the proof with each request instead: the typed password is kept in its
 * field, a passkey's answer serves the next change.
 */
export function reauthPanel(): Reauth {
  const panel = document.getElementById('reauth-panel') as HTMLElement;
  const form = document.getElementById('reauth-form') as HTMLFormElement;
  const state = document.getElementById('reauth-state') as HTMLElement;
  const password = document.getElementById('reauth_password') as HTMLInputElement;
  const passkeyButton = document.getElementById('reauth-passkey') as HTMLButtonElement;
  let visible = false;
  let windowSupported: boolean | undefined;
  let until = Number(sessionStorage.getItem(REAUTH_UNTIL_KEY) ?? 0);
  let passkeyProof: Proof | undefined;
  let closing: ReturnType<typeof setTimeout> | undefined;
  offerPasskeys();

  const isOpen = () => until > Date.now();

  function render(note = ''): void {
    clearTimeout(closing);
    const open = isOpen();
    form.hidden = open;
    state.hidden = !open && note === '';
    state.className = open ? 'reauth-state open' : 'reauth-state';
    if (open) {
      const time = new Date(until).toLocaleTimeString(document.documentElement.lang, { timeStyle: 'short' });
      state.textContent = t('reauth.open').replace('{time}', time);
      closing = setTimeout(() => render(t('reauth.closed')), Math.min(until - Date.now(), 2 ** 31 - 1));
    } else state.textContent = note;
    panel.hidden = !visible;
  }

  function close(note: string): void {
    until = 0;
    sessionStorage.removeItem(REAUTH_UNTIL_KEY);
    render(note);
  }

  /** One proof sent to user/reauth: true when the window opened, or when the server keeps per-request proofs. */
  async function confirm(proof: Proof): Promise<boolean> {
    clearMessages(form);
    const answer = await api<{ reauthenticated_until?: string }>('/user/reauth', {
      method: 'POST',
      body: proof,
    });
    if (answer.status === 401) {
      toLogin();
      return false;
    }
    if (answer.status === 404) {
      windowSupported = false;
      return true;
    }
    if (answer.status === 422) {
      const data = answer.body.data as Record<string, unknown>;
      const messages = REAUTH_FIELDS.flatMap((name) =>
        data[name] === undefined ? [] : fieldMessages(data[name]),
      );
      showField('reauth_password', messages.length > 0 ? messages : [t('error.generic')], true);
      password.focus();
      return false;
    }
    const end = Date.parse(answer.body.data.reauthenticated_until ?? '');
    if (answer.status !== 200 || !Number.isFinite(end)) {
      setError(form, errorText(answer));
      return false;
    }
    windowSupported = true;
    until = end;
    sessionStorage.setItem(REAUTH_UNTIL_KEY, String(end));
    password.value = '';
    render();
    return true;
  }

  async function confirmPassword(): Promise<boolean> {
    const opened = await confirm({ current_password: password.value });
    if (opened && windowSupported === false) render(t('reauth.per_change'));
    return opened;
  }

  onSubmit(form, async () => {
    if (password.value === '') {
      showField('reauth_password', [t('error.reauth_needed')], true);
      return password.focus();
    }
    await confirmPassword();
  });

  passkeyButton.addEventListener('click', () => {
    passkeyButton.disabled = true;
    confirmWithPasskey()
      .catch(() => setError(form, t('error.network')))
      .finally(() => {
        passkeyButton.disabled = false;
      });
  });

  async function confirmWithPasskey(): Promise<void> {
    clearMessages(form);
    const options = await api<{ options: PasskeyOptions; challenge_id: string }>(
      '/user/passkeys/reauth-options',
      {
        method: 'POST',
        body: {},
      },
    );
    if (options.status === 401) return toLogin();
    if (options.status !== 200) return setError(form, errorText(options));
    let response: Awaited<ReturnType<typeof startAuthentication>>;
    try {
      response = await startAuthentication({ optionsJSON: options.body.data.options });
    } catch (error) {
      return setError(form, passkeyFailure(error, t('error.passkey_cancelled')));
    }
    const proof = { passkey_challenge_id: options.body.data.challenge_id, passkey_response: response };
    if (!(await confirm(proof))) return;
    // Without the window, the answer (one use, five minutes) is kept for the next change.
    if (windowSupported === false) {
      passkeyProof = proof;
      render(t('reauth.passkey_once'));
    }
  }

  render();
  return {
    async proof() {
      if (isOpen()) return {};
      if (passkeyProof) {
        const proof = passkeyProof;
        passkeyProof = undefined;
        render();
        return proof;
      }
      if (password.value === '') return undefined;
      if (windowSupported === undefined && !(await confirmPassword())) return undefined;
      if (isOpen()) return {};
      return { current_password: password.value };
    },
    refused(data) {
      const messages = PROOF_FIELDS.flatMap((name) =>
        data[name] === undefined ? [] : fieldMessages(data[name]),
      );
      if (messages.length === 0) return undefined;
      if (isOpen()) close(t('reauth.closed'));
      else render();
      showField('reauth_password', messages, true);
      password.focus();
      return messages.join(' ');
    },
    show(on) {
      visible = on;
      panel.hidden = !on;
    },
  };
}

/** What a sensitive form does when no proof is at hand: says so beside its button and points at the panel. */
export function askForProof(target: HTMLFormElement): void {
  setStatus(target, '');
  // A confirmation that just failed (a wrong password) says why under the panel's field: the same words here.
  const refusal = document.getElementById('reauth_password-message')?.textContent ?? '';
  setError(target, refusal !== '' ? refusal : t('error.reauth_needed'));
  document.getElementById('reauth_password')?.focus();
}
