import { api, startSession } from '../lib/api.js';
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
import { chosenFile, previewPicture } from '../lib/preview.js';

const form = document.getElementById('signup') as HTMLFormElement;
const picture = document.getElementById('profile_picture') as HTMLInputElement;
previewPicture(picture, document.getElementById('preview') as HTMLImageElement);
for (const field of ['email', 'username', 'slug'] as const) checkAvailabilityWhileTyping(field);

onSubmit(form, async () => {
  clearMessages(form);
  setStatus(form, t('status.working'));
  const body = new FormData();
  body.set('type', 'email');
  for (const [name, value] of new FormData(form)) {
    if (typeof value === 'string') body.set(name, value);
  }
  const file = chosenFile(picture);
  if (file) body.set('profile_picture', file);
  const answer = await api<{ user?: { api_token?: string } }>('/auth/register', { method: 'POST', body });
  setStatus(form, '');
  if (answer.status === 422) return showValidationErrors(form, answer.body.data);
  const token = answer.body.data.user?.api_token;
  if (answer.status !== 200 || !token) return setError(form, errorText(answer.body));
  if (!(await startSession(token))) return setError(form, t('error.generic'));
  location.assign('/profile');
});
