import { t } from './i18n.js';

/**
 * The API's 422 messages in the page's own words. The server gives the page each rule's message as a
 * pattern in the page's language (src/web/field-rules.ts); a message that matches tells which rule failed
 * and with what values (`min` 8), and the page says it its own way: the field's sentence for that rule
 * (`field_error.email.unique`), else the rule's where it says the same on any field, else the field's own
 * (`field_error.gender`: "성별을 선택해 주세요."), else a plain "check this". The API's sentence itself is
 * never shown.
 */
const patterns: Array<[rule: string, pattern: RegExp]> = (
  JSON.parse(document.getElementById('rule-patterns')?.textContent ?? '[]') as Array<[string, string]>
).map(([rule, source]) => [rule, new RegExp(source)]);

/** `{min}` and the like, from the values the message carried. */
function filled(text: string, values: Record<string, string>): string {
  return text.replace(/\{([a-z_]+)\}/g, (whole, name: string) => values[name] ?? whole);
}

const known = (key: string): string | undefined => {
  const text = t(key);
  return text === key ? undefined : text;
};

/**
 * The sign-up's consent boxes (`consent_marketing_email`) are one family; the profile's new password is
 * the API's `password`.
 */
const family = (field: string) =>
  field.startsWith('consent_') ? 'consent' : field === 'new_password' ? 'password' : field;

/** One API message about `field`, in the page's words. */
export function pageSentence(field: string, message: string): string {
  const name = family(field);
  const matches = patterns.flatMap(([rule, pattern]) => {
    const found = pattern.exec(message);
    if (!found) return [];
    // "Required when the sign-up is by email" is, for the page, required.
    const values = { ...found.groups };
    return rule === 'required_if'
      ? [
          { rule: 'required', values },
          { rule, values },
        ]
      : [{ rule, values }];
  });
  for (const prefix of [`field_error.${name}.`, 'field_error.rule.']) {
    for (const { rule, values } of matches) {
      const sentence = known(`${prefix}${rule}`);
      if (sentence) return filled(sentence, values);
    }
  }
  return known(`field_error.${name}`) ?? t('field_error.generic');
}

/** A 422's messages for one field, as the page shows them. */
export function pageSentences(field: string, value: unknown): string[] {
  const messages = Array.isArray(value) ? value.map(String) : [String(value)];
  return [...new Set(messages.map((message) => pageSentence(field, message)))];
}

/** Every message of a 422 in the page's words, for a form that shows them on one line. */
export function allPageSentences(data: Record<string, unknown>): string[] {
  return Object.entries(data).flatMap(([field, value]) => pageSentences(field, value));
}
