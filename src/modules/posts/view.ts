import type { PostImage } from '../../db/schema.js';
import { type Static, t } from '../../http/response-schema.js';
import { iso } from '../../lib/time.js';
import {
  type PictureView,
  type PublicUserRow,
  pictureShape,
  publicUserExample,
  publicUserShape,
  publicUserView,
} from '../users/view.js';

/** A post as any client sees it. */
export const postShape = t.object({
  id: t.string(),
  text: t.string(),
  images: t.array(pictureShape),
  author: publicUserShape,
  like_count: t.integer(),
  liked_by_me: t.boolean(),
  created_at: t.dateTime(),
  updated_at: t.dateTime(),
});
export type PostView = Static<typeof postShape>;

/** `{"post": …}`: what the routes on one post answer. */
export const postResponse = t.object({ post: postShape });

/** One page of the feed; `next_cursor` is null on the last page. */
export const feedPageShape = t.object({ posts: t.array(postShape), next_cursor: t.nullable(t.string()) });

/** What a post's view is made of: its own columns, its author's public columns, and the viewer's like. */
export interface PostWithAuthor {
  id: string;
  text: string;
  images: PostImage[];
  like_count: number;
  created_at: Date;
  updated_at: Date;
  author: PublicUserRow;
  liked_by_me: boolean;
}

/** Never the storage keys: only what the app shows. */
function imageView(image: PostImage): PictureView {
  return { url: image.url, width: image.width, height: image.height, thumbnails: image.thumbnails };
}

export function postView(post: PostWithAuthor): PostView {
  return {
    id: post.id,
    text: post.text,
    images: post.images.map(imageView),
    author: publicUserView(post.author),
    like_count: post.like_count,
    liked_by_me: post.liked_by_me,
    created_at: iso(post.created_at),
    updated_at: iso(post.updated_at),
  };
}

/** A real post (post/create, text only), for the documentation's examples. */
export const postExample: PostView = {
  id: '019ab0c4-7a2b-7c1d-9e3f-0a1b2c3d4e5f',
  text: '오늘 날씨 좋네요',
  images: [],
  author: publicUserExample,
  like_count: 0,
  liked_by_me: false,
  created_at: '2026-11-23T12:41:10.456Z',
  updated_at: '2026-11-23T12:41:10.456Z',
};
