import { api } from './api.js';
import { showField } from './form.js';
import { t } from './i18n.js';

/** Quiet time after the last keystroke before the API is asked. */
const DEBOUNCE_MS = 350;

/**
 * Availability as the user types: after a pause, `validate/<field>` is asked, and its answer shown as is —
 * "available" for a 200, the 422 body's own messages otherwise. The rules live only in the API; the page
 * never repeats them. An answer that arrives after a newer keystroke is dropped (the request is aborted).
 * `isUnchanged` (the profile page) names the signed-in user's own value: validate would call it taken, so
 * it is not asked about at all.
 */
export function checkAvailabilityWhileTyping(
  field: 'email' | 'username' | 'slug',
  isUnchanged: (value: string) => boolean = () => false,
): void {
  const input = document.getElementById(field) as HTMLInputElement | null;
  if (!input) return;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let inFlight: AbortController | undefined;
  input.addEventListener('input', () => {
    clearTimeout(timer);
    inFlight?.abort();
    const value = input.value;
    if (value.trim() === '' || isUnchanged(value)) {
      showField(field, [], false);
      return;
    }
    timer = setTimeout(() => {
      const controller = new AbortController();
      inFlight = controller;
      showField(field, [t('status.checking')], false);
      api<Record<string, unknown>>(`/validate/${field}`, {
        method: 'POST',
        body: { [field]: value },
        signal: controller.signal,
      }).then(
        ({ status, body }) => {
          if (controller.signal.aborted) return;
          if (status === 200) showField(field, [t('status.available')], false);
          else if (status === 422) {
            const messages = body.data[field];
            showField(field, Array.isArray(messages) ? messages.map(String) : [t('error.generic')], true);
          } else showField(field, [body.meta.error_message ?? t('error.generic')], true);
        },
        () => {
          if (!controller.signal.aborted) showField(field, [t('error.network')], true);
        },
      );
    }, DEBOUNCE_MS);
  });
}
