import { api } from '../lib/api.js';
import {
  clearMessages,
  errorText,
  onSubmit,
  setError,
  setStatus,
  showValidationErrors,
} from '../lib/form.js';
import { t } from '../lib/i18n.js';
import { chosenFile, previewPicture } from '../lib/preview.js';
import { onUser, showUser, toLogin, type User } from './user.js';

/** The profile picture card: the current picture, and a form that replaces it. */
export function pictureSection(): void {
  const form = document.getElementById('picture') as HTMLFormElement;
  const input = document.getElementById('profile_picture') as HTMLInputElement;
  const current = document.getElementById('current-picture') as HTMLImageElement;
  const placeholder = document.getElementById('no-picture') as HTMLElement;
  previewPicture(input, document.getElementById('preview') as HTMLImageElement);

  onUser((user) => {
    const url = user.profile_picture?.thumbnails['256'] ?? user.profile_picture?.url;
    current.hidden = !url;
    if (url) current.src = url;
    placeholder.hidden = Boolean(url);
  });

  onSubmit(form, async () => {
    clearMessages(form);
    const file = chosenFile(input);
    const body = new FormData();
    if (file) body.set('profile_picture', file);
    const answer = await api<{ user: User }>('/user/profile-image/update', { method: 'POST', body });
    if (answer.status === 401) return toLogin();
    if (answer.status === 422) return showValidationErrors(form, answer.body.data);
    if (answer.status !== 200) return setError(form, errorText(answer));
    showUser(answer.body.data.user);
    setStatus(form, t('status.picture_saved'));
  });
}
