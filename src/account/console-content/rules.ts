import { CONSENT_LANGUAGES, MAX_TITLE_CHARS, MAX_URL_LENGTH } from '../../modules/consents/publish-rules.js';
import { DOCUMENT_KEY } from '../../modules/consents/service.js';
import { boolean, integer, string } from '../../validation/field-kinds.js';
import { type RuleList, rules } from '../../validation/rule-list.js';
import { reasonField } from '../console-users/staff-access.js';
import { AUTHOR_POSTS_LIMIT } from './posts.js';

const postId = string().required().max(64).describe('The post’s `id`.');

/** A page of an author's posts, hidden ones included. */
export const authorPostsRules = rules({
  author: string().required().max(255).describe('The author: a user `id`, email or username.'),
  limit: integer()
    .min(AUTHOR_POSTS_LIMIT.min)
    .max(AUTHOR_POSTS_LIMIT.max)
    .describe('Posts per page (1–100, 20 by default).'),
  cursor: string().max(128).describe("The previous page's `next_cursor`."),
});

export const postRules = rules({ id: postId });

/** Hide, show again or delete: always with the reason the access record keeps. */
export const moderateRules = rules({ id: postId, reason: reasonField.required() });

export const documentKey = string()
  .required()
  .pattern(DOCUMENT_KEY)
  .describe('The document key: lower-case letters, digits and `_` (`terms`, `marketing_email`).');

/** The largest version: the column is an `integer`, and the CLI and the /legal pages take nine digits. */
const MAX_VERSION = 999_999_999;

export const versionRules = rules({
  key: documentKey,
  version: integer().required().min(1).max(MAX_VERSION).describe('The version.'),
});

/** Per language (ko, en): its title, and its page elsewhere or its text here (or both). */
const languageFields: RuleList = Object.fromEntries(
  CONSENT_LANGUAGES.flatMap((lang) => [
    [`title_${lang}`, string().max(MAX_TITLE_CHARS).describe(`The title in ${lang}.`)],
    [
      `url_${lang}`,
      string()
        .max(MAX_URL_LENGTH)
        .describe(`The page in ${lang}: a path of this service or an http(s) URL; the own page if left out.`),
    ],
    [`body_${lang}`, string().describe(`The text in ${lang} (plain text, at most 100 KB).`)],
  ]),
);

/** A new version, as `accounts consent publish` takes it: versions only go up. */
export const publishRules = rules({
  key: documentKey,
  version: integer()
    .required()
    .min(1)
    .max(MAX_VERSION)
    .describe('The new version: greater than the current one.'),
  required: boolean().describe('Sign-up requires it (`user_agreement`); optional without it.'),
  ...languageFields,
});
