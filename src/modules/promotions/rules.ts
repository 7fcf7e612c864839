import type { RuleFailure } from '../../errors.js';
import { Field } from '../../validation/field.js';
import { integer, string } from '../../validation/field-kinds.js';
import { rules } from '../../validation/rule-list.js';
import type { Rule } from '../../validation/types.js';

/** How many ids `exclude` may carry: each costs at most one extra index probe per call, so it is bounded. */
export const MAX_EXCLUDED = 1000;

/**
 * `exclude`: an array of user ids, as `exclude[]=a&exclude[]=b`, `exclude[0]=a` or a JSON array. A form
 * with more than the parser's array limit arrives as an object keyed 0, 1, 2…: that is still the array PHP
 * would have built, so it is read as one. Anything else (a plain string, an object with other keys) is the
 * `array` failure.
 */
function idArray(): Field<string[]> {
  const invalid = { ok: false as const, failure: { rule: 'array' } satisfies RuleFailure };
  return new Field<string[]>({
    kind: 'array',
    coerce: (value) => {
      const items = Array.isArray(value)
        ? value
        : value !== null && typeof value === 'object' && Object.keys(value).every((key) => /^\d+$/.test(key))
          ? Object.values(value)
          : undefined;
      if (!items?.every((item) => typeof item === 'string')) return invalid;
      return { ok: true, value: items as string[] };
    },
    baseSchema: { type: 'array', items: { type: 'string', format: 'uuid' } },
    presence: { type: 'optional' },
    rules: [],
  });
}

export const bannersRules = rules({});

export const inspirersRules = rules({
  exclude: idArray()
    .max(MAX_EXCLUDED)
    .describe(
      'User ids never to return (ids already shown, the signed-in user…); other strings never match.',
    ),
  limit: integer().min(1).max(100).describe('At most this many inspirers (default 10).'),
});

/** Laravel's `url` rule, for http(s) only: what an app can load an image from. */
const httpUrl: Rule<string> = {
  name: 'url',
  check: (value) => {
    try {
      const url = new URL(value);
      return url.protocol === 'https:' || url.protocol === 'http:' ? undefined : { rule: 'url' };
    } catch {
      return { rule: 'url' };
    }
  },
  schema: (schema) => {
    schema.format = 'uri';
  },
};

/** Any absolute URL: a banner may open a web page or an app's own deep link (`app://…`). */
const absoluteUrl: Rule<string> = {
  name: 'url',
  check: (value) => (URL.canParse(value) && /^[a-z][a-z0-9+.-]*:/i.test(value) ? undefined : { rule: 'url' }),
};

/**
 * An ISO 8601 instant: a date (midnight UTC) or a date and time with `Z` or an offset. A time without a zone
 * is refused: the operator's clock and the server's may not agree on what it means.
 */
const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}(?:T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,6})?)?(?:Z|[+-]\d{2}:?\d{2}))?$/i;

const isoInstant: Rule<string> = {
  name: 'date',
  check: (value) =>
    ISO_INSTANT.test(value) && !Number.isNaN(Date.parse(value)) ? undefined : { rule: 'date' },
};

/** The operator's `banner add` (command line): the same rule engine and messages as the HTTP endpoints. */
export const bannerAddRules = rules({
  title: string().required().max(255),
  image_url: string().required().max(2048).rule(httpUrl),
  link_url: string().max(2048).rule(absoluteUrl),
  position: integer().min(-1_000_000).max(1_000_000),
  starts_at: string().rule(isoInstant),
  ends_at: string().rule(isoInstant),
});
