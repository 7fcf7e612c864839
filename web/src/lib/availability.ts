import { answerText, fieldMessages } from './answers.js';
import { api } from './api.js';
import { showField } from './form.js';
import { t } from './i18n.js';

/** Quiet time after the last keystroke before the API is asked (the live checks and the strength hint). */
export const DEBOUNCE_MS = 350;

export interface AvailabilityCheck {
  /** Drops the pending question and any answer still on its way, and clears the field's note. */
  cancel(): void;
}

/**
 * Availability as the user types: after a pause, `validate/<field>` is asked, and its answer shown —
 * "available" for a 200, the 422 body's own messages otherwise. The rules live only in the API; the page
 * never repeats them. An answer that arrives after a newer keystroke is dropped (the request is aborted).
 * `isUnchanged` (the profile page) names the signed-in user's own value: validate would call it taken, so
 * it is not asked about, and an answer that arrives once the value has become the user's own (saved while
 * the question was on its way) is not shown either.
 */
export function checkAvailabilityWhileTyping(
  field: 'email' | 'username' | 'slug',
  isUnchanged: (value: string) => boolean = () => false,
): AvailabilityCheck {
  const input = document.getElementById(field) as HTMLInputElement | null;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let inFlight: AbortController | undefined;
  const cancel = () => {
    clearTimeout(timer);
    inFlight?.abort();
  };
  if (!input) return { cancel };
  input.addEventListener('input', () => {
    cancel();
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
        (answer) => {
          if (controller.signal.aborted) return;
          if (isUnchanged(input.value)) showField(field, [], false);
          else if (answer.status === 200) showField(field, [t('status.available')], false);
          else if (answer.status === 422)
            showField(field, fieldMessages(answer.body.data[field] ?? t('error.generic'), field), true);
          else showField(field, [answerText(answer)], true);
        },
        () => {
          if (!controller.signal.aborted) showField(field, [t('error.network')], true);
        },
      );
    }, DEBOUNCE_MS);
  });
  return { cancel };
}
