import { api, startSession } from '../lib/api.js';
import { checkAvailabilityWhileTyping } from '../lib/availability.js';
import { type ConsentDocument, consentDocuments, documentLink } from '../lib/consent-documents.js';
import {
  clearMessages,
  errorText,
  onSubmit,
  setError,
  setStatus,
  showValidationErrors,
} from '../lib/form.js';
import { t } from '../lib/i18n.js';
import { revealButtons, strengthHint } from '../lib/password-field.js';
import { chosenFile, previewPicture } from '../lib/preview.js';
import { signUpCode as signUpCodeChoice } from '../lib/signup-code.js';

const form = document.getElementById('signup') as HTMLFormElement;
const picture = document.getElementById('profile_picture') as HTMLInputElement;
previewPicture(picture, document.getElementById('preview') as HTMLImageElement);
for (const field of ['email', 'username', 'slug'] as const) checkAvailabilityWhileTyping(field);
revealButtons();
const value = (id: string) => (document.getElementById(id) as HTMLInputElement).value;
strengthHint('password', () => ({ email: value('email'), username: value('username') }));

/**
 * 전체 동의: ticks or unticks every consent box (the required one and each optional one, which stay shown
 * and can each be changed after); it shows ticked when all are, and mixed when some are.
 */
const agreeAll = document.getElementById('agree_all') as HTMLInputElement;
const consentBoxes = () =>
  Array.from(
    form.querySelectorAll<HTMLInputElement>('#user_agreement, #optional-consents input[type="checkbox"]'),
  );
function showAgreeAll(): void {
  const ticked = consentBoxes().filter((box) => box.checked).length;
  agreeAll.checked = ticked > 0 && ticked === consentBoxes().length;
  agreeAll.indeterminate = ticked > 0 && !agreeAll.checked;
}
agreeAll.addEventListener('change', () => {
  for (const box of consentBoxes()) {
    if (box.checked === agreeAll.checked) continue;
    box.checked = agreeAll.checked;
    // As a click would: the box's own error clears, and the form hears the change.
    box.dispatchEvent(new Event('input', { bubbles: true }));
  }
  showAgreeAll();
});
form.addEventListener('change', (event) => {
  if (event.target !== agreeAll) showAgreeAll();
});

/** A required document under the one required box: its title, a link to its text. */
function requiredItem(document_: ConsentDocument): HTMLLIElement {
  const item = document.createElement('li');
  item.append(documentLink(document_, document_.title));
  return item;
}

/** An optional document: its own box, never ticked in advance (refusing it never blocks the sign-up). */
function optionalBox(document_: ConsentDocument): HTMLDivElement {
  const name = `consent_${document_.key}`;
  const box = document.createElement('div');
  box.className = 'field checkbox';
  const input = document.createElement('input');
  input.type = 'checkbox';
  input.id = name;
  input.name = name;
  input.value = 'on';
  input.setAttribute('aria-describedby', `${name}-message`);
  const label = document.createElement('label');
  label.htmlFor = name;
  label.textContent = `${document_.title} (${t('consent.optional')})`;
  const link = documentLink(document_, t('consent.read'));
  link.className = 'document-link';
  const message = document.createElement('p');
  message.id = `${name}-message`;
  message.className = 'message';
  message.setAttribute('aria-live', 'polite');
  box.append(input, label, link, message);
  return box;
}

async function showDocuments(): Promise<void> {
  const documents = await consentDocuments();
  if (!documents) throw new Error('consents/documents');
  const required = documents.filter((document_) => document_.required);
  const optional = documents.filter((document_) => !document_.required);
  document.getElementById('required-documents')?.replaceChildren(...required.map(requiredItem));
  const optionalBlock = document.getElementById('optional-consents') as HTMLElement;
  optionalBlock.append(...optional.map(optionalBox));
  optionalBlock.hidden = optional.length === 0;
  showAgreeAll();
}

showDocuments().catch(() => {
  // The required box still works without the list: the API agrees to whatever is required now.
  (document.getElementById('consents-error') as HTMLElement).textContent = t('consent.load_failed');
});

/** The token of a sign-up code mail's link (`/signup?code=…`): the form then asks for no password. */
const signUpCode = new URLSearchParams(location.search).get('code') || undefined;
if (signUpCode !== undefined) {
  const password = document.getElementById('password') as HTMLInputElement;
  password.required = false;
  (password.closest('.field') as HTMLElement).hidden = true;
  (document.querySelector('.signup-code-choice') as HTMLElement).hidden = true;
}
/** Or the code typed from the same mail, asked for on this page instead of a password. */
const typedCode = signUpCode === undefined ? signUpCodeChoice(form) : undefined;

/**
 * Every submission is built from the form as it is now (no state is kept from an attempt the API refused),
 * so fixing a refused field and sending again is a sign-up like the first.
 */
onSubmit(form, async () => {
  clearMessages(form);
  setStatus(form, t('status.working'));
  const body = new FormData();
  body.set('type', 'email');
  for (const [name, value] of new FormData(form)) {
    if (typeof value === 'string') body.set(name, value);
  }
  // Opened from a sign-up code's mail: the link's token proves the address instead of a password.
  body.delete('signup_code');
  const code = typedCode?.chosen() ? typedCode.code() : signUpCode;
  if (code !== undefined) {
    body.set('type', 'email_code');
    body.set('code', code);
    body.delete('password');
  }
  const file = chosenFile(picture);
  if (file) body.set('profile_picture', file);
  const answer = await api<{ user?: { api_token?: string; guardian_consent?: string | null } }>(
    '/auth/register',
    { method: 'POST', body },
  );
  setStatus(form, '');
  if (answer.status === 422) return showValidationErrors(form, codeFieldNamed(answer.body.data));
  const token = answer.body.data.user?.api_token;
  if (answer.status !== 200 || !token) return setError(form, errorText(answer));
  if (!(await startSession(token))) return setError(form, t('error.generic'));
  // A child under 14: the next step is a guardian's consent, asked right here.
  if (answer.body.data.user?.guardian_consent === 'pending') return showGuardianStep();
  location.assign('/profile');
});

/** A refused `code` is the typed code's field, or (a link's code) the link, said on the form's line. */
function codeFieldNamed(data: Record<string, unknown>): Record<string, unknown> {
  const { code, ...rest } = data;
  if (code === undefined) return rest;
  return { ...rest, [typedCode?.chosen() ? 'signup_code' : 'token']: code };
}

/** The sign-up is done; the child names a guardian, who gets the link (user/guardian/request). */
function showGuardianStep(): void {
  (form.closest('.card') as HTMLElement).hidden = true;
  const step = document.getElementById('guardian-step') as HTMLElement;
  const request = document.getElementById('guardian-request') as HTMLFormElement;
  step.hidden = false;
  (document.getElementById('guardian_email') as HTMLInputElement).focus();
  onSubmit(request, async () => {
    clearMessages(request);
    const answer = await api('/user/guardian/request', {
      method: 'POST',
      body: { guardian_email: value('guardian_email') },
    });
    if (answer.status === 422) return showValidationErrors(request, answer.body.data);
    if (answer.status !== 200) return setError(request, errorText(answer));
    setStatus(request, t('status.guardian_asked'));
  });
}
