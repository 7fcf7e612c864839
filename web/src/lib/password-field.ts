import { api } from './api.js';
import { DEBOUNCE_MS } from './availability.js';
import { t } from './i18n.js';
import { passwordStrength, type Strength } from './password-strength.js';

/**
 * The show/hide button beside every password input (`button[data-reveal]`, rendered by src/web/html.ts):
 * it turns the input into text and back, and says which it is by aria-pressed and its own word.
 */
export function revealButtons(): void {
  for (const button of Array.from(document.querySelectorAll<HTMLButtonElement>('button[data-reveal]'))) {
    const input = document.getElementById(button.dataset.reveal ?? '') as HTMLInputElement | null;
    if (!input) continue;
    button.hidden = false;
    button.addEventListener('click', () => {
      const shown = input.type === 'password';
      input.type = shown ? 'text' : 'password';
      button.setAttribute('aria-pressed', String(shown));
      button.textContent = t(shown ? 'password.hide' : 'password.show');
      input.focus();
    });
  }
}

/** The account's own names a new password is compared with (the API refuses them as it refuses common ones). */
export interface PasswordOwner {
  email?: string;
  username?: string;
}

/** The shortest and longest password the API accepts (newPasswordField). */
const [MIN_LENGTH, MAX_LENGTH] = [8, 1024];

/**
 * The strength hint of a new-password input (`<id>-strength`), updated as the user types: the local estimate
 * at once, then, after a pause, the API's own judgement (`validate/password` with the `owner`'s email and
 * username, which knows the common-password list). Only the latest answer counts: a keystroke aborts the
 * question on its way. A 422 on `password` for a password of an accepted length can only be the
 * common-password rule: it says "too common", or "your own email or username" when it is one of them. A 200,
 * a 429 or a network failure leaves the local estimate.
 */
export function strengthHint(id: string, owner: () => PasswordOwner = () => ({})): void {
  const input = document.getElementById(id) as HTMLInputElement | null;
  const hint = document.getElementById(`${id}-strength`);
  if (!input || !hint) return;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let inFlight: AbortController | undefined;
  const show = (strength: Strength | undefined) => {
    if (strength === undefined) {
      hint.textContent = '';
      hint.removeAttribute('data-strength');
      return;
    }
    hint.dataset.strength = strength;
    hint.textContent = t(`strength.${strength}`);
  };
  input.addEventListener('input', () => {
    clearTimeout(timer);
    inFlight?.abort();
    const password = input.value;
    if (password === '') return show(undefined);
    const { email = '', username = '' } = owner();
    const names = [email, email.split('@')[0] ?? '', username];
    const local = passwordStrength(password, names);
    show(local);
    if (password.length < MIN_LENGTH || password.length > MAX_LENGTH) return;
    timer = setTimeout(() => {
      const controller = new AbortController();
      inFlight = controller;
      const body: Record<string, string> = { password };
      if (email !== '') body.email = email;
      if (username !== '') body.username = username;
      api('/validate/password', { method: 'POST', body, signal: controller.signal }).then(
        (answer) => {
          if (controller.signal.aborted || input.value !== password) return;
          if (answer.status === 422 && answer.body.data.password !== undefined)
            show(local === 'personal' ? 'personal' : 'common');
        },
        () => undefined, // aborted or offline: the local estimate stays
      );
    }, DEBOUNCE_MS);
  });
}
