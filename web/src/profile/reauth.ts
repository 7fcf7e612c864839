import { fieldMessages } from '../lib/answers.js';
import { api, REAUTH_UNTIL_KEY } from '../lib/api.js';
import { clearMessages, errorText, onSubmit, setError, setStatus, showField } from '../lib/form.js';
import { t } from '../lib/i18n.js';
import { offerPasskeys, passkeyFailure } from '../lib/passkey-support.js';
import { startAuthentication } from '../vendor/simplewebauthn/index.js';
import { toLogin } from './user.js';

/** The fields a request sends to prove the owner is at the keyboard (none inside an open window). */
export type Proof = Record<string, unknown>;

/**
 * A sensitive request's proof fields: a 422 naming one of them is about the confirmation, not the change.
 * `code` is the second factor a change that adds or removes a way to sign in asks of an account that has one.
 */
const PROOF_FIELDS = ['current_password', 'passkey_response', 'passkey_challenge_id', 'code'];
/** user/reauth takes the same proof fields as every sensitive request, and a recovery code for the code. */
const REAUTH_FIELDS = [...PROOF_FIELDS, 'recovery_code'];
/** The fields whose messages go under the panel's code field rather than its password field. */
const CODE_FIELDS = new Set(['code', 'recovery_code']);

/** What a sensitive form tells the panel about a 422 it got. */
export interface RefusalOptions {
  /** Fields the request sends as its own (the two-factor section's `code`): never about the confirmation. */
  own?: readonly string[];
  /** Sends the request again: done once the panel's next confirmation opens a window. */
  retry?: () => void;
}

export interface Reauth {
  /** The proof for a sensitive request, confirming first if a password is typed; undefined when none is at hand. */
  proof(): Promise<Proof | undefined>;
  /** A sensitive request's 422: the proof's messages go under the panel's field; the text for the request's own line. */
  refused(data: Record<string, unknown>, options?: RefusalOptions): string | undefined;
  /** Whether the account has a second factor on: the panel then asks for its code beside the password. */
  secondFactor(on: boolean): void;
  /** Shows the panel (above a sensitive section, or while the email is being changed) or hides it. */
  show(visible: boolean): void;
  /** A request stopped for want of proof: the next confirmation that opens a window sends it again. */
  resume(retry: () => void): void;
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
  const codeRow = document.getElementById('reauth-second-factor') as HTMLElement;
  const code = document.getElementById('reauth_code') as HTMLInputElement;
  const codeLabel = form.querySelector('label[for="reauth_code"]') as HTMLLabelElement;
  const codeKind = document.getElementById('reauth-code-kind') as HTMLButtonElement;
  let recovery = false;
  let retry: (() => void) | undefined;
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

  /** The app's code, or a recovery code (letters too: no numeric keyboard, no one-time-code autofill). */
  function useRecovery(on: boolean): void {
    recovery = on;
    codeLabel.textContent = t(on ? 'reauth.recovery_code' : 'reauth.code');
    codeKind.textContent = t(on ? 'reauth.use_code' : 'reauth.use_recovery');
    code.inputMode = on ? 'text' : 'numeric';
    code.autocomplete = on ? 'off' : 'one-time-code';
    code.value = '';
  }
  codeKind.addEventListener('click', () => {
    useRecovery(!recovery);
    code.focus();
  });

  /** The password, with the second factor when one is typed. */
  function passwordProof(): Proof {
    const typed = codeRow.hidden ? '' : code.value.trim();
    if (typed === '') return { current_password: password.value };
    return { current_password: password.value, [recovery ? 'recovery_code' : 'code']: typed };
  }

  /** Messages per field of the panel: the second factor's under its code, the rest under the password. */
  function showMessages(
    data: Record<string, unknown>,
    fields: readonly string[],
    refusal: boolean,
  ): string[] {
    const byField = { reauth_password: [] as string[], reauth_code: [] as string[] };
    for (const name of fields) {
      if (data[name] === undefined) continue;
      const codeField = CODE_FIELDS.has(name);
      // A change refused for want of the second factor: the API's sentence names its routes, the page says
      // what to do in its own words. user/reauth's own `code` messages are about the code typed.
      const messages =
        refusal && name === 'code' ? [t('reauth.code_needed')] : fieldMessages(data[name], name);
      byField[codeField ? 'reauth_code' : 'reauth_password'].push(...messages);
    }
    if (byField.reauth_code.length > 0) codeRow.hidden = false;
    showField('reauth_password', byField.reauth_password, byField.reauth_password.length > 0);
    showField('reauth_code', byField.reauth_code, byField.reauth_code.length > 0);
    const first = byField.reauth_password.length > 0 || password.value === '' ? password : code;
    first.focus();
    return [...byField.reauth_password, ...byField.reauth_code];
  }

  /**
   * The next confirmation that opens a window sends the refused request again, and the forms that asked for
   * a confirmation lose their error line (it is answered).
   */
  function continueRefused(): void {
    const next = retry;
    retry = undefined;
    if (!isOpen()) return;
    for (const asking of Array.from(document.querySelectorAll<HTMLFormElement>('form[data-awaits-proof]'))) {
      delete asking.dataset.awaitsProof;
      setError(asking, '');
    }
    next?.();
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
      if (showMessages(data, REAUTH_FIELDS, false).length === 0) {
        showField('reauth_password', [t('error.generic')], true);
        password.focus();
      }
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
    code.value = '';
    render();
    return true;
  }

  async function confirmPassword(): Promise<boolean> {
    const opened = await confirm(passwordProof());
    if (opened && windowSupported === false) render(t('reauth.per_change'));
    return opened;
  }

  onSubmit(form, async () => {
    if (password.value === '') {
      showField('reauth_password', [t('error.reauth_needed')], true);
      return password.focus();
    }
    if (await confirmPassword()) continueRefused();
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
    continueRefused();
    // Without the window, the answer (one use, five minutes) is kept for the next change.
    if (windowSupported === false) {
      passkeyProof = proof;
      render(t('reauth.passkey_once'));
    }
  }

  render();
  return {
    async proof() {
      // The request asking is under way: nothing is left to send again.
      retry = undefined;
      if (isOpen()) return {};
      if (passkeyProof) {
        const proof = passkeyProof;
        passkeyProof = undefined;
        render();
        return proof;
      }
      if (password.value === '') return undefined;
      // A server with windows opens one (of two factors when a code is typed) rather than take the password.
      if (windowSupported !== false && !(await confirmPassword())) return undefined;
      if (isOpen()) return {};
      return { current_password: password.value };
    },
    refused(data, options = {}) {
      const fields = PROOF_FIELDS.filter((name) => !options.own?.includes(name) && data[name] !== undefined);
      if (fields.length === 0) return undefined;
      // A window of the password alone is still open for the other changes, but not for this one.
      const wantsCode = fields.includes('code');
      if (isOpen()) close(wantsCode ? '' : t('reauth.closed'));
      else render();
      retry = options.retry;
      return showMessages(data, fields, true).join(' ');
    },
    secondFactor(on) {
      codeRow.hidden = !on;
      if (!on) code.value = '';
    },
    show(on) {
      visible = on;
      panel.hidden = !on;
    },
    resume(next) {
      retry = next;
    },
  };
}

/** A 422's messages other than the proof's (those are the confirmation panel's). */
export function withoutProof(data: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(data).filter(([name]) => !PROOF_FIELDS.includes(name)));
}

/** What a sensitive form does when no proof is at hand: says so beside its button and points at the panel. */
export function askForProof(target: HTMLFormElement): void {
  setStatus(target, '');
  // A confirmation that just failed (a wrong password or code) says why under the panel's fields: the same
  // words here.
  const refusal = ['reauth_password', 'reauth_code']
    .map((name) => document.getElementById(`${name}-message`)?.textContent ?? '')
    .filter((text) => text !== '')
    .join(' ');
  setError(target, refusal !== '' ? refusal : t('error.reauth_needed'));
  target.dataset.awaitsProof = 'true';
  document.getElementById('reauth_password')?.focus();
}
