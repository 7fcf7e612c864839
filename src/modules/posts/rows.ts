import type { PostImage } from '../../db/schema.js';
import type { PostWithAuthor } from './view.js';

/** A page row: the post with its author, plus what the next cursor is made of. */
export interface FeedRow extends PostWithAuthor {
  hot_score: number;
  /**
   * The newest created_at any post this query could see may have (statement start, rounded up to the next
   * millisecond): the `hot` walk's bound when this is its first page.
   */
  read_bound: Date;
}

export interface JoinedRow {
  id: string;
  text: string;
  images: PostImage[];
  like_count: number;
  created_at: Date;
  updated_at: Date;
  hot_score: number;
  read_bound: Date;
  liked_by_me: boolean;
  author_id: string;
  author_username: string;
  author_slug: string;
  author_gender: number;
  author_bio: string | null;
  author_profile_picture: PostImage | null;
  author_is_inspirer: boolean;
  author_created_at: Date;
  author_updated_at: Date;
}

export function toFeedRow(row: JoinedRow): FeedRow {
  return {
    id: row.id,
    text: row.text,
    images: row.images,
    like_count: row.like_count,
    created_at: row.created_at,
    updated_at: row.updated_at,
    hot_score: row.hot_score,
    read_bound: row.read_bound,
    liked_by_me: row.liked_by_me,
    author: {
      id: row.author_id,
      username: row.author_username,
      slug: row.author_slug,
      gender: row.author_gender,
      bio: row.author_bio,
      profile_picture: row.author_profile_picture,
      is_inspirer: row.author_is_inspirer,
      created_at: row.author_created_at,
      updated_at: row.author_updated_at,
    },
  };
}
