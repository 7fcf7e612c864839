import type { UserRow } from '../../db/schema.js';
import { type Endpoint, endpoint } from '../../http/endpoint.js';
import { rules } from '../../validation/fields.js';
import type { ProbeResult } from '../images/probe.js';
import { IMAGE_NOTE, type ImageLimits } from '../images/rules.js';
import type { FeedCursor, FeedCursorCodec } from './cursor.js';
import { CURSOR_NOTE, createPostRules, feedRules } from './rules.js';
import type { PostsService } from './service.js';

const signedIn = (auth: { user: unknown }) => auth.user as UserRow;
const viewerOf = (auth: { user: unknown } | undefined) => (auth?.user as UserRow | undefined)?.id;
const postId = (request: { params: unknown }) => (request.params as { id: string }).id;

export function postEndpoints(posts: PostsService, codec: FeedCursorCodec, limits: ImageLimits): Endpoint[] {
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
      rules: feed,
      handle: async ({ params, auth, notes }) =>
        posts.feed(viewerOf(auth), {
          order: params.order === 'hot' ? 'hot' : 'new',
          limit: params.limit ?? 20,
          cursor: params.cursor === undefined ? undefined : (notes.get(CURSOR_NOTE) as FeedCursor),
        }),
    }),
    endpoint({
      method,
      path: '/post/single/:id/raw',
      summary: 'One post',
      tag: 'post',
      auth: 'optional',
      errors: [404],
      rules: rules({}),
      handle: async ({ auth, request }) => ({ post: await posts.get(postId(request), viewerOf(auth)) }),
    }),
  ]);
  return [
    endpoint({
      method: 'POST',
      path: '/post/create',
      summary: 'Publish a post',
      description:
        'multipart/form-data when it carries `images[]` (up to 4, re-encoded like profile pictures).',
      tag: 'post',
      auth: 'required',
      errors: [413],
      rules: createPostRules(limits),
      handle: async ({ params, auth, notes }) => ({
        post: await posts.create(signedIn(auth), {
          text: params.text,
          images: (params.images ?? []).map((file, index) => ({
            file,
            probe: notes.get(IMAGE_NOTE(`images.${index}`)) as ProbeResult | undefined,
          })),
        }),
      }),
    }),
    endpoint({
      method: 'POST',
      path: '/post/:id/like',
      summary: 'Like a post (idempotent)',
      tag: 'post',
      auth: 'required',
      errors: [404],
      rules: rules({}),
      handle: async ({ auth, request }) => ({ post: await posts.like(signedIn(auth), postId(request)) }),
    }),
    endpoint({
      method: 'POST',
      path: '/post/:id/unlike',
      summary: 'Take a like back (idempotent)',
      tag: 'post',
      auth: 'required',
      errors: [404],
      rules: rules({}),
      handle: async ({ auth, request }) => ({ post: await posts.unlike(signedIn(auth), postId(request)) }),
    }),
    endpoint({
      method: 'POST',
      path: '/post/:id/delete',
      summary: 'Delete one of your own posts',
      description: "Someone else's post is a 403; its images are removed once the deletion has committed.",
      tag: 'post',
      auth: 'required',
      errors: [403, 404],
      rules: rules({}),
      handle: async ({ auth, request }) => {
        await posts.delete(signedIn(auth).id, postId(request));
        return { deleted: true };
      },
    }),
    ...readEndpoints,
  ];
}
