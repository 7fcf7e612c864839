import { slugField, type UsersTaken, usernameField } from '../../modules/users/rules.js';
import { integer, string } from '../../validation/field-kinds.js';
import { rules } from '../../validation/rule-list.js';
import { reasonField } from './staff-access.js';

/**
 * What staff may search by. A new searchable column is one more name here and one more key in the search
 * repo, with its index. A phone is typed as people write it (`010-1234-5678`) and searched in E.164.
 */
export const SEARCH_FIELDS = ['email', 'username', 'slug', 'id', 'phone'] as const;
export type SearchField = (typeof SEARCH_FIELDS)[number];
export const SEARCH_MODES = ['exact', 'prefix'] as const;
export type SearchMode = (typeof SEARCH_MODES)[number];
export const SEARCH_LIMIT = { min: 1, max: 100, default: 20 } as const;

const searchFields = {
  field: string().required().in(SEARCH_FIELDS).describe('What to search by.'),
  mode: string()
    .in(SEARCH_MODES)
    .describe('`exact` (the default) or `prefix` (the value begins with the query).'),
  query: string({ normalize: 'NFC' }).required().max(255).describe('Compared case-insensitively.'),
};

/** A page of the search. */
export const searchRules = rules({
  ...searchFields,
  limit: integer()
    .min(SEARCH_LIMIT.min)
    .max(SEARCH_LIMIT.max)
    .describe('Users per page (1–100, 20 by default).'),
  cursor: string().max(512).describe("The previous page's `next_cursor`."),
});

/** A search's every row as CSV (up to EXPORT_MAX_ROWS), with the reason the export is for. */
export const exportRules = rules({ ...searchFields, reason: reasonField.required() });

/** The fields staff may show in full, one at a time. */
export const REVEALABLE = ['email', 'phone', 'birth_date'] as const;
export type RevealableField = (typeof REVEALABLE)[number];
export const revealRules = rules({
  field: string().required().in(REVEALABLE).describe('The field to show in full.'),
  reason: reasonField.required(),
});

/**
 * A new username or slug, by the fields and uniqueness the app's own profile change applies (user/update):
 * the user's own re-cased name is not "taken". The unique indexes decide a race.
 */
export const renameRules = (taken: UsersTaken) =>
  rules({
    username: usernameField.unique(taken.username, { name: 'users,username', ignoreCurrentUser: true }),
    slug: slugField.unique(taken.slug, { name: 'users,slug', ignoreCurrentUser: true }),
    reason: reasonField.required(),
  });
