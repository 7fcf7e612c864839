import { api } from '../lib/api.js';
import { checkAvailabilityWhileTyping } from '../lib/availability.js';
import {
  clearMessages,
  errorText,
  onSubmit,
  setError,
  setStatus,
  showValidationErrors,
} from '../lib/form.js';
import { t } from '../lib/i18n.js';
import { askForProof, type Reauth, withoutProof } from './reauth.js';
import { onUser, showUser, toLogin, type User } from './user.js';

const input = (id: string) => document.getElementById(id) as HTMLInputElement;

/** Uniqueness is case-insensitive (and usernames are NFC): this is how the API compares names. */
const sameName = (a: string, b: string) =>
  a.trim().normalize('NFC').toLowerCase() === b.trim().normalize('NFC').toLowerCase();

/**
 * The account's details: email, username, slug, gender, bio. A new email needs the owner's proof
 * (user/update's re-authentication): `onEmailChanging` hears whether the email differs from the saved one,
 * so that the confirmation panel shows; after saving, the page says where the verification mail went.
 */
export function detailsSection(reauth: Reauth, onEmailChanging: (changing: boolean) => void): void {
  const form = document.getElementById('profile') as HTMLFormElement;
  const email = input('email');
  let saved: User | undefined;

  const emailChanged = () => saved !== undefined && !sameName(email.value, saved.email);
  const showReauth = () => onEmailChanging(emailChanged());
  email.addEventListener('input', showReauth);

  // The user's own names are not "taken": validate is asked only about a value that differs from them, and
  // an answer arriving after the value was saved is not shown.
  const checks = (['email', 'username', 'slug'] as const).map((field) =>
    checkAvailabilityWhileTyping(field, (value) => saved !== undefined && sameName(value, saved[field])),
  );

  onUser((user) => {
    saved = user;
    email.value = user.email;
    input('username').value = user.username;
    input('slug').value = user.slug;
    (document.getElementById('bio') as HTMLTextAreaElement).value = user.bio ?? '';
    for (const radio of Array.from(form.querySelectorAll<HTMLInputElement>('input[name="gender"]'))) {
      radio.checked = radio.value === String(user.gender);
    }
    showReauth();
    (document.getElementById('profile-fields') as HTMLFieldSetElement).disabled = false;
  });

  onSubmit(form, async () => {
    for (const check of checks) check.cancel();
    clearMessages(form);
    const values = Object.fromEntries(new FormData(form));
    const changingEmail = emailChanged();
    const body: Record<string, unknown> = {
      username: values.username,
      slug: values.slug,
      gender: values.gender,
      bio: values.bio,
    };
    // Sent only when edited (a re-cased address needs no password: the API sees the same account).
    if (saved && email.value.trim() !== saved.email) body.email = values.email;
    if (changingEmail) {
      const proof = await reauth.proof();
      if (!proof) {
        reauth.resume(() => form.requestSubmit());
        return askForProof(form);
      }
      Object.assign(body, proof);
    }
    const answer = await api<{ user: User }>('/user/update', { method: 'POST', body });
    if (answer.status === 401) return toLogin();
    if (answer.status === 422) {
      const data: Record<string, unknown> = answer.body.data;
      // The proof's messages are the confirmation panel's; confirmed, it saves again.
      const aboutProof = reauth.refused(data, { retry: () => form.requestSubmit() });
      showValidationErrors(form, aboutProof ? withoutProof(data) : data);
      if (aboutProof) setError(form, aboutProof);
      return;
    }
    if (answer.status !== 200) return setError(form, errorText(answer));
    const user = answer.body.data.user;
    showUser(user);
    setStatus(
      form,
      changingEmail ? t('status.email_sent').replace('{email}', user.email) : t('status.saved'),
    );
  });
}
