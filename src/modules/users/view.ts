import type { ProfilePicture, UserRow } from '../../db/schema.js';
import { iso } from '../../lib/time.js';

/** What a client sees of a profile picture: never the storage keys. */
export interface PictureView {
  url: string;
  width: number;
  height: number;
  thumbnails: Record<string, string>;
}

/** The signed-in user's own view of their account (DESIGN §2.5). */
export interface UserView {
  id: string;
  email: string;
  username: string;
  slug: string;
  gender: number;
  bio: string | null;
  profile_picture: PictureView | null;
  providers: string[];
  has_password: boolean;
  /** Whether the user proved they read mail at `email` (private: only in the user's own view). */
  email_verified: boolean;
  is_inspirer: boolean;
  created_at: string;
  updated_at: string;
}

/** What register and every login answer: the user and the new token, shown this once. */
export type SignedIn = { user: UserView & { api_token: string } };

/** Another user as anyone may see them (inspirers, post authors): no email, providers or password flag. */
export type PublicUserView = Omit<UserView, 'email' | 'providers' | 'has_password' | 'email_verified'>;

function pictureView(picture: ProfilePicture | null): PictureView | null {
  if (!picture) return null;
  return { url: picture.url, width: picture.width, height: picture.height, thumbnails: picture.thumbnails };
}

/** The columns a public view reads (a post's author is selected with just these). */
export type PublicUserRow = Pick<
  UserRow,
  | 'id'
  | 'username'
  | 'slug'
  | 'gender'
  | 'bio'
  | 'profile_picture'
  | 'is_inspirer'
  | 'created_at'
  | 'updated_at'
>;

export function publicUserView(row: PublicUserRow): PublicUserView {
  return {
    id: row.id,
    username: row.username,
    slug: row.slug,
    gender: row.gender,
    bio: row.bio,
    profile_picture: pictureView(row.profile_picture),
    is_inspirer: row.is_inspirer,
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
  };
}

export function userView(row: UserRow, providers: string[]): UserView {
  const view = publicUserView(row);
  return {
    id: view.id,
    email: row.email,
    username: view.username,
    slug: view.slug,
    gender: view.gender,
    bio: view.bio,
    profile_picture: view.profile_picture,
    providers,
    has_password: row.password_hash !== null,
    email_verified: row.email_verified,
    is_inspirer: view.is_inspirer,
    created_at: view.created_at,
    updated_at: view.updated_at,
  };
}
