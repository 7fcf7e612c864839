import { fieldMessages } from '../lib/answers.js';
import { setError, showField } from '../lib/form.js';

/**
 * A 422 of the Security section's forms: the API names its fields (`code`, `name` …) while the section's
 * inputs carry page-unique names (`manage_code`, `passkey_name`), so `fields` maps API name → input name;
 * anything else goes to the form's error line.
 */
export function showMappedErrors(
  form: HTMLFormElement,
  data: Record<string, unknown>,
  fields: Record<string, string>,
): void {
  const loose: string[] = [];
  let first: HTMLElement | null = null;
  for (const [name, value] of Object.entries(data)) {
    const messages = fieldMessages(value, name);
    const input = fields[name];
    if (input) {
      showField(input, messages, true);
      first ??= document.getElementById(input);
    } else loose.push(...messages);
  }
  setError(form, loose.join(' '));
  first?.focus();
}

export const inputValue = (id: string): string => (document.getElementById(id) as HTMLInputElement).value;

export function clearInputs(...ids: string[]): void {
  for (const id of ids) (document.getElementById(id) as HTMLInputElement).value = '';
}
