import { type AnyEndpoint, endpoint } from '../../http/endpoint.js';
import { t } from '../../http/response-schema.js';
import type { RateCounter } from '../../limits/rate-counter.js';
import { idempotencyKeyOf } from '../idempotency/key.js';
import type { ImageLimits } from '../images/rules.js';
import type { FeedCursorCodec } from './cursor.js';
import { createPostRules, feedRules, postIdRules } from './rules.js';
import type { PostsService } from './service.js';
import { feedPageShape, postExample, postResponse } from './view.js';

export function postEndpoints(
  posts: PostsService,
  codec: FeedCursorCodec,
  limits: ImageLimits,
  /** Image uploads per user, shared with profile pictures: a post of four images counts four. */
  imageUploads: RateCounter,
): AnyEndpoint[] {
  const feed = feedRules(codec);
  const readEndpoints = (['GET', 'POST'] as const).flatMap((method) => [
    endpoint({
      method,
      path: '/post/raw/feed',
      summary: 'The feed, newest or hottest first, a page at a time',
      description:
        'Keyset pagination: pass `next_cursor` back as `cursor` (with the same `order`) until it is null. ' +
        '`liked_by_me` is false without a token.',
      tag: 'post',
      auth: 'optional',
      readOnly: true,
      rules: feed,
      response: feedPageShape,
      example: { posts: [postExample], next_cursor: null },
      handle: async ({ params, auth }) =>
        posts.feed(auth, {
          order: params.order === 'hot' ? 'hot' : 'new',
          limit: params.limit ?? 20,
          cursor: params.cursor,
        }),
    }),
    endpoint({
      method,
      path: '/post/single/:id/raw',
      summary: 'One post',
      tag: 'post',
      auth: 'optional',
      readOnly: true,
      errors: [404],
      rules: postIdRules,
      response: postResponse,
      example: { post: postExample },
      handle: async ({ params, auth }) => ({ post: await posts.get(auth, params.id) }),
    }),
  ]);
  return [
    endpoint({
      method: 'POST',
      path: '/post/create',
      summary: 'Publish a post',
      description:
        'multipart/form-data when it carries `images[]` (up to 4, re-encoded like profile pictures). An ' +
        'optional `Idempotency-Key` header (16–255 characters of `A-Z a-z 0-9 _ -`) makes a retry with the ' +
        'same key and parameters answer with the post the first request made, not a second one.',
      tag: 'post',
      auth: 'required',
      errors: [413],
      uploads: imageUploads,
      rules: createPostRules(limits),
      response: postResponse,
      example: { post: postExample },
      handle: async ({ params, auth, request }) => ({
        post: await posts.create(
          auth,
          { text: params.text, images: params.images ?? [] },
          idempotencyKeyOf(request.headers),
        ),
      }),
    }),
    endpoint({
      method: 'POST',
      path: '/post/:id/like',
      summary: 'Like a post (idempotent)',
      tag: 'post',
      auth: 'required',
      errors: [404],
      rules: postIdRules,
      response: postResponse,
      example: { post: { ...postExample, like_count: 1, liked_by_me: true } },
      handle: async ({ params, auth }) => ({ post: await posts.like(auth, params.id) }),
    }),
    endpoint({
      method: 'POST',
      path: '/post/:id/unlike',
      summary: 'Take a like back (idempotent)',
      tag: 'post',
      auth: 'required',
      errors: [404],
      rules: postIdRules,
      response: postResponse,
      example: { post: postExample },
      handle: async ({ params, auth }) => ({ post: await posts.unlike(auth, params.id) }),
    }),
    endpoint({
      method: 'POST',
      path: '/post/:id/delete',
      summary: 'Delete one of your own posts',
      description: "Someone else's post is a 403; its images are removed once the deletion has committed.",
      tag: 'post',
      auth: 'required',
      errors: [403, 404],
      rules: postIdRules,
      response: t.object({ deleted: t.literal(true) }),
      example: { deleted: true },
      handle: async ({ params, auth }) => {
        await posts.delete(auth, params.id);
        return { deleted: true as const };
      },
    }),
    ...readEndpoints,
  ];
}
