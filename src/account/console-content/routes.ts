import { type AnyAdminEndpoint, adminEndpoint } from '../../http/admin-endpoint.js';
import { t } from '../../http/response-schema.js';
import { CONSENT_LANGUAGES } from '../../modules/consents/publish-rules.js';
import type { ModeratedPostView } from '../../modules/posts/moderation.js';
import { rules } from '../../validation/rule-list.js';
import { actorOf, type RefusedTarget, refusedAs } from '../console-users/route-actor.js';
import type { AccessRecorder } from '../console-users/staff-access.js';
import type { ConsoleConsents, ConsolePublishInput, VersionDetail } from './consents.js';
import type { ConsolePosts } from './posts.js';
import {
  authorPostsRules,
  documentKey,
  moderateRules,
  postRules,
  publishRules,
  versionRules,
} from './rules.js';

/** What the console's content routes call: the services (services/console-content.ts) and the records. */
export interface ConsoleContentRouteParts {
  consolePosts: ConsolePosts;
  consoleConsents: ConsoleConsents;
  recorder: AccessRecorder;
}

const POST_ID = '019ab0c4-7a2b-7c1d-9e3f-0a1b2c3d4e5f';
const AUTHOR = { id: '0193a5c1-7d2e-7f00-8a11-3c4d5e6f7a8b', username: 'minji' };

const postShape = t.object({
  id: t.string(),
  author: t.object({ id: t.string(), username: t.string() }),
  text: t.string(),
  image_count: t.integer(),
  like_count: t.integer(),
  created_at: t.dateTime(),
  author_hidden: t.boolean(),
  hidden_at: t.nullable(t.dateTime()),
  hidden_reason: t.nullable(t.string('Why.')),
});

const postExample: ModeratedPostView = {
  id: POST_ID,
  author: AUTHOR,
  text: '오늘 날씨 좋네요',
  image_count: 0,
  like_count: 3,
  created_at: '2026-11-23T12:41:10.456Z',
  author_hidden: false,
  hidden_at: null,
  hidden_reason: null,
};

const textsShape = t.json<Record<string, { title: string; url: string }>>('Title and page URL per language.');
const versionShape = t.object({
  key: t.string(),
  version: t.integer(),
  current_version: t.integer(),
  texts: textsShape,
  bodies: t.json<Record<string, string>>('The text per language, where the service serves the page.'),
});
const versionExample: VersionDetail = {
  key: 'terms',
  version: 2,
  current_version: 2,
  texts: { ko: { title: '이용약관', url: '/legal/terms/2/ko' } },
  bodies: { ko: '제1조 (목적) …' },
};

/** A refused request names no author (its post is not read before the refusal), only the post's id. */
const postTarget: RefusedTarget = (id) => ({
  subjectId: null,
  ...(id === undefined ? {} : { detail: { post_id: id.slice(0, 64) } }),
});

const MODERATIONS = [
  ['hide', 'Hide the post from the feed and the single post, with a reason'],
  ['unhide', 'Show a hidden post again, with a reason'],
  ['delete', 'Delete the post, its likes and image files, with a reason'],
] as const;

/** The admin API's posts and consent documents (docs/console-content.md#posts-and-consent-documents). */
export function consoleContentEndpoints(parts: ConsoleContentRouteParts): AnyAdminEndpoint[] {
  const { consolePosts, consoleConsents, recorder } = parts;
  return [
    adminEndpoint({
      method: 'GET',
      path: '/posts',
      summary: "An author's posts, hidden ones too, newest first, a keyset page at a time",
      tag: 'content',
      auth: 'staff',
      permission: 'content.read',
      refused: refusedAs(recorder, 'posts.view', 'content.read', postTarget),
      errors: [404],
      rules: authorPostsRules,
      response: t.object({
        author: t.object({ id: t.string(), username: t.string() }),
        posts: t.array(postShape),
        next_cursor: t.nullable(t.string()),
      }),
      example: { author: AUTHOR, posts: [postExample], next_cursor: null },
      handle: async ({ params, staff, request }) => consolePosts.byAuthor(actorOf(staff, request), params),
    }),
    adminEndpoint({
      method: 'GET',
      path: '/posts/:id',
      summary: 'One post, hidden or not',
      tag: 'content',
      auth: 'staff',
      permission: 'content.read',
      refused: refusedAs(recorder, 'post.view', 'content.read', postTarget),
      errors: [404],
      rules: postRules,
      response: t.object({ post: postShape }),
      example: { post: postExample },
      handle: async ({ params, staff, request }) => ({
        post: await consolePosts.post(actorOf(staff, request), params.id),
      }),
    }),
    ...MODERATIONS.map(([name, summary]) =>
      adminEndpoint({
        method: 'POST',
        path: `/posts/:id/${name}`,
        summary,
        tag: 'content',
        auth: 'staff',
        permission: 'content.write',
        refused: refusedAs(recorder, `post.${name}`, 'content.write', postTarget),
        errors: [404],
        rules: moderateRules,
        response: t.object({ post: postShape }),
        example: { post: postExample },
        handle: async ({ params, staff, request }) => {
          const actor = actorOf(staff, request);
          const post =
            name === 'hide'
              ? await consolePosts.hide(actor, params.id, params.reason)
              : name === 'unhide'
                ? await consolePosts.unhide(actor, params.id, params.reason)
                : await consolePosts.remove(actor, params.id, params.reason);
          return { post };
        },
      }),
    ),
    adminEndpoint({
      method: 'GET',
      path: '/consents',
      summary: 'Every consent document at its current version',
      tag: 'content',
      auth: 'staff',
      permission: 'content.read',
      rules: rules({}),
      response: t.object({
        documents: t.array(
          t.object({ key: t.string(), version: t.integer(), required: t.boolean(), texts: textsShape }),
        ),
      }),
      example: { documents: [{ key: 'terms', version: 2, required: true, texts: versionExample.texts }] },
      handle: async ({ staff, request }) => ({
        documents: await consoleConsents.documents(actorOf(staff, request)),
      }),
    }),
    adminEndpoint({
      method: 'GET',
      path: '/consents/:key/versions',
      summary: "A document's versions, newest first (titles, pages, which languages have a text)",
      tag: 'content',
      auth: 'staff',
      permission: 'content.read',
      errors: [404],
      rules: rules({ key: documentKey }),
      response: t.object({
        key: t.string(),
        versions: t.array(
          t.object({
            version: t.integer(),
            published_at: t.dateTime(),
            texts: textsShape,
            body_languages: t.array(t.string()),
          }),
        ),
      }),
      example: {
        key: 'terms',
        versions: [
          {
            version: 2,
            published_at: '2026-11-23T12:41:10.456Z',
            texts: versionExample.texts,
            body_languages: ['ko'],
          },
        ],
      },
      handle: async ({ params, staff, request }) =>
        consoleConsents.versions(actorOf(staff, request), params.key),
    }),
    adminEndpoint({
      method: 'GET',
      path: '/consents/:key/versions/:version',
      summary: 'One version with its texts',
      tag: 'content',
      auth: 'staff',
      permission: 'content.read',
      errors: [404],
      rules: versionRules,
      response: versionShape,
      example: versionExample,
      handle: async ({ params, staff, request }) =>
        consoleConsents.version(actorOf(staff, request), params.key, params.version),
    }),
    adminEndpoint({
      method: 'POST',
      path: '/consents/:key/versions',
      summary: 'Publish a new version with its texts: it becomes the current one',
      description:
        'Per language (`ko`, `en`) a title and a page URL or a text (or both); without a URL the page is the ' +
        "service's own, `/legal/{key}/{version}/{lang}`. The rules of `accounts consent publish`.",
      tag: 'content',
      auth: 'staff',
      permission: 'content.write',
      rules: publishRules,
      response: versionShape,
      example: versionExample,
      handle: async ({ params, staff, request }) => {
        const fields = params as unknown as Record<string, string | undefined>;
        const texts: ConsolePublishInput['texts'] = {};
        for (const lang of CONSENT_LANGUAGES)
          texts[lang] = {
            title: fields[`title_${lang}`],
            url: fields[`url_${lang}`],
            body: fields[`body_${lang}`],
          };
        return consoleConsents.publish(actorOf(staff, request), {
          key: params.key,
          version: params.version,
          required: params.required,
          texts,
        });
      },
    }),
  ];
}
