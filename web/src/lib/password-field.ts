import { t } from './i18n.js';
import { passwordStrength } from './password-strength.js';

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

/**
 * The strength hint of a new-password input (`<id>-strength`), updated as the user types. `identifiers`
 * reads the email and username the password must not equal, as the API checks.
 */
export function strengthHint(id: string, identifiers: () => string[] = () => []): void {
  const input = document.getElementById(id) as HTMLInputElement | null;
  const hint = document.getElementById(`${id}-strength`);
  if (!input || !hint) return;
  input.addEventListener('input', () => {
    if (input.value === '') {
      hint.textContent = '';
      hint.removeAttribute('data-strength');
      return;
    }
    const strength = passwordStrength(input.value, identifiers());
    hint.dataset.strength = strength;
    hint.textContent = t(`strength.${strength}`);
  });
}
