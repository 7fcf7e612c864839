import type { PostImage } from '../../db/schema.js';
import { iso } from '../../lib/time.js';
import { type PictureView, type PublicUserRow, type PublicUserView, publicUserView } from '../users/view.js';

/** A post as any client sees it (DESIGN §2.5, issue 7). */
export interface PostView {
  id: string;
  text: string;
  images: PictureView[];
  author: PublicUserView;
  like_count: number;
  liked_by_me: boolean;
  created_at: string;
  updated_at: string;
}

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
