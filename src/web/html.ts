import type { MessageKey } from './i18n.js';

/** A page's strings in its language. */
export type Translate = (key: MessageKey) => string;

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

export interface FieldOptions {
  type?: string;
  autocomplete?: string;
  required?: boolean;
  /** A short explanation under the label, read out with the input. */
  hint?: MessageKey;
  extra?: string;
}

/**
 * The visible mark of a required field, beside its label. Hidden from assistive technology, which hears
 * the input's own `required` instead (the label stays the field's name).
 */
export function requiredMark(t: Translate): string {
  return ` <span class="required-mark" aria-hidden="true">${escapeHtml(t('field.required'))}</span>`;
}

/** A field's label, with the required mark beside it (outside the label: the name stays the words alone). */
function labelRow(t: Translate, name: string, label: MessageKey, required: boolean | undefined): string {
  const element = `<label for="${name}">${escapeHtml(t(label))}</label>`;
  return required ? `<div class="label-row">${element}${requiredMark(t)}</div>` : element;
}

/**
 * A labelled input whose message paragraph (availability or errors) is tied to it by aria-describedby. The
 * message paragraph is a live region, so a message that appears while typing is read out.
 */
export function field(t: Translate, name: string, label: MessageKey, options: FieldOptions = {}): string {
  const type = options.type ?? 'text';
  const autocomplete = options.autocomplete ? ` autocomplete="${options.autocomplete}"` : '';
  const required = options.required ? ' required' : '';
  const hint = options.hint ? `\n  <p id="${name}-hint" class="hint">${escapeHtml(t(options.hint))}</p>` : '';
  const describedBy = options.hint ? `${name}-hint ${name}-message` : `${name}-message`;
  return `<div class="field">
  ${labelRow(t, name, label, options.required)}${hint}
  <input id="${name}" name="${name}" type="${type}"${autocomplete}${required}${options.extra ?? ''} aria-describedby="${describedBy}">
  <p id="${name}-message" class="message" aria-live="polite"></p>
</div>`;
}

export function textareaField(t: Translate, name: string, label: MessageKey, rows = 3): string {
  return `<div class="field">
  <label for="${name}">${escapeHtml(t(label))}</label>
  <textarea id="${name}" name="${name}" rows="${rows}" aria-describedby="${name}-message"></textarea>
  <p id="${name}-message" class="message" aria-live="polite"></p>
</div>`;
}

/** The gender choice; `required` on the sign-up (a radio group says so as a whole and on each radio). */
export function genderField(t: Translate, required = false): string {
  const group = required ? ' role="radiogroup" aria-required="true"' : '';
  const radio = required ? ' required' : '';
  return `<fieldset class="field choices" aria-describedby="gender-message"${group}>
  <legend>${escapeHtml(t('field.gender'))}${required ? requiredMark(t) : ''}</legend>
  <label class="choice"><input type="radio" name="gender" value="0"${radio}> ${escapeHtml(t('field.gender.female'))}</label>
  <label class="choice"><input type="radio" name="gender" value="1"${radio}> ${escapeHtml(t('field.gender.male'))}</label>
  <p id="gender-message" class="message" aria-live="polite"></p>
</fieldset>`;
}

/**
 * The picture input: the native button speaks the browser's language, not the page's, so the input is
 * visually hidden and a label styled as a button opens it; the chosen file's name shows beside it.
 */
export function pictureField(t: Translate): string {
  return `<div class="field">
  <label for="profile_picture">${escapeHtml(t('field.profile_picture'))}</label>
  <div class="file-picker">
  <input id="profile_picture" name="profile_picture" type="file" class="visually-hidden" accept="image/jpeg,image/png,image/gif" aria-describedby="profile_picture-name profile_picture-message">
  <label for="profile_picture" class="button" aria-hidden="true">${escapeHtml(t('file.choose'))}</label>
  <span id="profile_picture-name" class="file-name">${escapeHtml(t('file.none'))}</span>
  </div>
  <img id="preview" class="preview" alt="${escapeHtml(t('field.preview'))}" hidden>
  <p id="profile_picture-message" class="message" aria-live="polite"></p>
</div>`;
}

export interface PasswordFieldOptions {
  autocomplete: 'current-password' | 'new-password';
  required?: boolean;
  /** A strength hint under a new password (web/src/lib/password-field.ts fills it while typing). */
  strength?: boolean;
}

/**
 * A password input with a show/hide button (shown by the page's script, which makes it work) and, for a
 * new password, a strength line read out as it changes.
 */
export function passwordField(
  t: Translate,
  name: string,
  label: MessageKey,
  options: PasswordFieldOptions,
): string {
  const required = options.required ? ' required' : '';
  const strength = options.strength
    ? `\n  <p id="${name}-strength" class="strength" aria-live="polite"></p>`
    : '';
  const describedBy = options.strength ? `${name}-strength ${name}-message` : `${name}-message`;
  return `<div class="field">
  ${labelRow(t, name, label, options.required)}
  <div class="password-row">
  <input id="${name}" name="${name}" type="password" autocomplete="${options.autocomplete}"${required} aria-describedby="${describedBy}">
  <button type="button" class="reveal" data-reveal="${name}" aria-controls="${name}" aria-pressed="false" hidden>${escapeHtml(t('password.show'))}</button>
  </div>${strength}
  <p id="${name}-message" class="message" aria-live="polite"></p>
</div>`;
}

export function submitButton(t: Translate, label: MessageKey): string {
  return `<button type="submit" class="primary">${escapeHtml(t(label))}</button>`;
}

/** Form-wide outcome: a polite status line and an assertive error line (empty ones take no room). */
export const formStatus =
  '<p id="form-status" class="status" role="status"></p><p id="form-error" class="error" role="alert"></p>';

/** A second form's outcome lines on the same page: the same roles, without the page-wide ids. */
export const sectionStatus = '<p class="status" role="status"></p><p class="error" role="alert"></p>';

/** One card of a page: a titled section (`heading`) or a plain panel. */
export function card(content: string, heading?: { id: string; text: string }): string {
  if (!heading) return `<div class="card">\n${content}\n</div>`;
  return `<section class="card" aria-labelledby="${heading.id}">
<h2 id="${heading.id}">${escapeHtml(heading.text)}</h2>
${content}
</section>`;
}
