import { answerText, fieldMessages, type Refusal } from './answers.js';
import { t } from './i18n.js';

/** The message paragraph of a field, tied to its input by aria-describedby. */
function messageOf(name: string): HTMLElement | null {
  return document.getElementById(`${name}-message`);
}

function inputsOf(name: string): HTMLElement[] {
  return Array.from(document.querySelectorAll<HTMLElement>(`[name="${CSS.escape(name)}"]`));
}

/** Shows the API's messages for a field (an error when `invalid`, else a positive note) and marks the input. */
export function showField(name: string, messages: string[], invalid: boolean): void {
  const message = messageOf(name);
  if (message) {
    message.textContent = messages.join(' ');
    message.className = invalid ? 'message error' : messages.length > 0 ? 'message ok' : 'message';
  }
  for (const input of inputsOf(name)) {
    if (invalid) input.setAttribute('aria-invalid', 'true');
    else input.removeAttribute('aria-invalid');
  }
}

/**
 * A 422 envelope's `data` (field → messages) shown beside each field; fields without an element of their own
 * (e.g. `type`) go to the form's error line. Focus moves to the first invalid field for keyboard users.
 */
export function showValidationErrors(form: HTMLFormElement, data: Record<string, unknown>): void {
  const loose: string[] = [];
  let first: HTMLElement | undefined;
  for (const [name, value] of Object.entries(data)) {
    const messages = fieldMessages(value, name);
    if (messageOf(name)) {
      showField(name, messages, true);
      first ??= inputsOf(name)[0];
    } else loose.push(...messages);
  }
  setError(form, loose.join(' '));
  first?.focus();
}

export function clearMessages(form: HTMLFormElement): void {
  for (const element of Array.from(form.querySelectorAll<HTMLElement>('.message'))) {
    const name = element.id.replace(/-message$/, '');
    showField(name, [], false);
  }
  setError(form, '');
  setStatus(form, '');
}

export function setStatus(form: HTMLFormElement, text: string): void {
  const element = form.querySelector<HTMLElement>('.status');
  if (element) element.textContent = text;
}

export function setError(form: HTMLFormElement, text: string): void {
  const element = form.querySelector<HTMLElement>('.error[role="alert"]');
  if (element) element.textContent = text;
}

/** The error line of a non-422 answer, in the page's words (web/src/lib/answers.ts). */
export function errorText(answer: Refusal): string {
  return answerText(answer);
}

/**
 * A field's error goes away as soon as that field changes: the message was about the old value. `input`, not
 * `change`: leaving a text field fires `change`, which would wipe an answer that arrived while typing (a
 * taken username). Radios, checkboxes and file inputs fire `input` too.
 */
function clearFieldErrorOnInput(form: HTMLFormElement): void {
  form.addEventListener('input', (event) => {
    const target = event.target;
    if (!(target instanceof HTMLInputElement || target instanceof HTMLTextAreaElement)) return;
    if (target.name && target.getAttribute('aria-invalid') === 'true') showField(target.name, [], false);
  });
}

/**
 * Runs a submit handler with the button disabled, reporting a network failure on the form; a field's error
 * clears as soon as the field is edited.
 */
export function onSubmit(form: HTMLFormElement, handler: () => Promise<void>): void {
  clearFieldErrorOnInput(form);
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const button = form.querySelector<HTMLButtonElement>('button[type="submit"]');
    if (button) button.disabled = true;
    handler()
      .catch(() => setError(form, t('error.network')))
      .finally(() => {
        if (button) button.disabled = false;
      });
  });
}
