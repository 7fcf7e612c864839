import { type Locale, ruleTemplates } from '../validation/messages.js';

/** A regular expression's special characters, escaped. */
const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * Each rule's message as a pattern (`^The (?<attribute>.+?) field is required\.$`), in `locale`: the
 * pages read a 422's message as "this rule failed, with these values" and say it in their own words
 * (web/src/lib/field-errors.ts), whatever the API's wording. The Korean `:name{은/는}` takes either particle.
 */
function rulePatterns(locale: Locale): Array<[rule: string, pattern: string]> {
  return Object.entries(ruleTemplates(locale)).map(([rule, template]) => {
    const seen = new Set<string>();
    const parts = template.split(/(:[A-Za-z_]+(?:\{[^}]+\})?)/);
    const pattern = parts
      .map((part, index) => {
        if (index % 2 === 0) return escapeRegExp(part);
        const [, name = '', particles] = /^:([A-Za-z_]+)(?:\{([^}]+)\})?$/.exec(part) ?? [];
        const group = seen.has(name) ? `\\k<${name}>` : `(?<${name}>.+?)`;
        seen.add(name);
        return particles ? `${group}(?:${particles.split('/').map(escapeRegExp).join('|')})` : group;
      })
      .join('');
    return [rule, `^${pattern}$`];
  });
}

const CACHE = new Map<Locale, string>();

/** The JSON block of the patterns a page reads (computed once per language). */
export function rulePatternsJson(locale: Locale): string {
  let json = CACHE.get(locale);
  if (json === undefined) {
    // `<` escaped: the JSON must not be able to close its <script> element.
    json = JSON.stringify(rulePatterns(locale)).replace(/</g, '\\u003c');
    CACHE.set(locale, json);
  }
  return json;
}
