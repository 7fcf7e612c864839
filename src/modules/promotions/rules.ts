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

/**
 * What a banner may open: a web page (http, https) or one of the apps' own schemes the operator configured
 * (BANNER_LINK_SCHEMES). Nothing else: the app hands the link to a web view or the system, which would run a
 * `javascript:` or `vbscript:` link, render a `data:` one and open a `file:` one. Also asked of a stored link
 * before it is served: one written before the schemes were checked is served as no link.
 */
export function bannerLinkAllowed(appSchemes: readonly string[]): (link: string) => boolean {
  const allowed = new Set(['http:', 'https:', ...appSchemes.map((scheme) => `${scheme}:`)]);
  return (link) => URL.canParse(link) && allowed.has(new URL(link).protocol);
}

function bannerLink(appSchemes: readonly string[]): Rule<string> {
  const allowed = bannerLinkAllowed(appSchemes);
  return { name: 'url', check: (value) => (allowed(value) ? undefined : { rule: 'url' }) };
}

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

/**
 * The operator's `banner add` (command line): the same rule engine and messages as the HTTP endpoints.
 * `appSchemes`: the apps' own link schemes (BANNER_LINK_SCHEMES).
 */
export const bannerAddRules = (appSchemes: readonly string[]) =>
  rules({
    title: string().required().max(255),
    image_url: string().required().max(2048).rule(httpUrl),
    ...bannerEditFields(appSchemes),
  });

/** What an edit of a banner may change: `banner add`'s own fields and rules. */
const bannerEditFields = (appSchemes: readonly string[]) => ({
  link_url: string().max(2048).rule(bannerLink(appSchemes)),
  position: integer().min(-1_000_000).max(1_000_000),
  starts_at: string().rule(isoInstant),
  ends_at: string().rule(isoInstant),
});

export const bannerEditRules = (appSchemes: readonly string[]) => rules(bannerEditFields(appSchemes));
