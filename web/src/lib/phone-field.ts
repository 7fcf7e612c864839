import AsYouType from '../vendor/libphonenumber/es6/AsYouType.js';
import metadata from '../vendor/libphonenumber/metadata.min.json.js';

/** The characters of a number that count: its digits and a leading `+`. */
const significant = (text: string) => text.replace(/[^\d+]/g, '');

/** Where the caret goes: just after the `count`-th significant character of `text`. */
function caretAfter(text: string, count: number): number {
  if (count <= 0) return 0;
  let seen = 0;
  for (let index = 0; index < text.length; index += 1) {
    if (/[\d+]/.test(text[index] ?? '')) seen += 1;
    if (seen === count) return index + 1;
  }
  return text.length;
}

/** A stored number (+821012345678) as Koreans write it (010-1234-5678); another country's, internationally. */
export function formatPhone(text: string): string {
  const digits = significant(text);
  // +82 10… is written at home with the trunk 0: 010-….
  const national = digits.startsWith('+82') ? `0${digits.slice(3)}` : digits;
  return new AsYouType('KR', metadata).input(national);
}

/**
 * Formats a mobile number field as it is typed (`01012345678` shows as `010-1234-5678`), with the caret
 * kept after the same digit. Backspace over a hyphen removes the digit before it: the hyphen alone would
 * only come back. The API takes the number in any of these forms, so the field is sent as shown.
 */
export function formatAsTyped(input: HTMLInputElement): void {
  let previous = input.value;
  input.addEventListener('input', (event) => {
    const kind = event instanceof InputEvent ? event.inputType : '';
    let value = input.value;
    let before = significant(value.slice(0, input.selectionStart ?? value.length)).length;
    const removedOnlyFormatting =
      kind === 'deleteContentBackward' && significant(value) === significant(previous);
    if (removedOnlyFormatting && before > 0) {
      const at = caretAfter(value, before);
      value = value.slice(0, at - 1) + value.slice(at);
      before -= 1;
    }
    // As typed: a number begun with +82 stays international (+82 10 1234 5678).
    const formatted = new AsYouType('KR', metadata).input(significant(value));
    input.value = formatted;
    previous = formatted;
    const caret = caretAfter(formatted, before);
    if (document.activeElement === input) input.setSelectionRange(caret, caret);
  });
}
