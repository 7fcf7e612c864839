import type { ProfilePicture, UserRow } from '../../db/schema.js';
import { type Static, t } from '../../http/response-schema.js';
import { isAdult } from '../../lib/age.js';
import { iso } from '../../lib/time.js';

/** What a client sees of a profile picture (or a post image): never the storage keys. */
export const pictureShape = t.object({
  url: t.string(),
  width: t.integer(),
  height: t.integer(),
  /** By size in pixels: `{"256": url, "64": url}`. */
  thumbnails: t.record(t.string()),
});
export type PictureView = Static<typeof pictureShape>;

/** The signed-in user's own view of their account: what user/get, login and sign-up answer. */
export const userShape = t.object({
  id: t.string(),
  email: t.string(),
  username: t.string(),
  slug: t.string(),
  gender: t.integer(),
  bio: t.nullable(t.string()),
  profile_picture: t.nullable(pictureShape),
  /** The linked identity providers' names. */
  providers: t.array(t.string()),
  has_password: t.boolean(),
  /** Whether the user proved they read mail at `email` (private: only in the user's own view). */
  email_verified: t.boolean(),
  /** The mobile number in E.164, verified or not; null when none (private). */
  phone: t.nullable(t.string()),
  /** Whether a texted code proved `phone`: it then signs in by SMS code (private). */
  phone_verified: t.boolean(),
  /** A carrier identity verification (PortOne) confirmed the account's person (private). */
  identity_verified: t.boolean(),
  /** 19 or over in full years, Korean time, by the birth date; null when no birth date is known (private). */
  adult: t.nullable(t.boolean()),
  is_inspirer: t.boolean(),
  created_at: t.dateTime(),
  updated_at: t.dateTime(),
  /** A child under 14's legal guardian's consent: `pending` until one answers; null when none is needed. */
  guardian_consent: t.nullable(t.enum(['pending', 'granted'])),
  /** What the account may not do yet, and why: `guardian_consent_required` while the consent is pending. */
  restrictions: t.array(t.enum(['guardian_consent_required'])),
});
export type UserView = Static<typeof userShape>;

/** `{"user": …}`: what the profile routes answer. */
export const userResponse = t.object({ user: userShape });

/** What register and every login answer: the user and the new token, shown this once. */
export const signedInResponse = t.object({ user: t.extend(userShape, { api_token: t.string() }) });
export type SignedIn = Static<typeof signedInResponse>;

/** Another user as anyone may see them (inspirers, post authors): no email, providers or password flag. */
export const publicUserShape = t.omit(userShape, [
  'email',
  'providers',
  'has_password',
  'email_verified',
  'phone',
  'phone_verified',
  'guardian_consent',
  'restrictions',
  'identity_verified',
  'adult',
]);
export type PublicUserView = Static<typeof publicUserShape>;

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
    phone: row.phone,
    phone_verified: row.phone_verified,
    // From the row the token was read with: no query of its own.
    identity_verified: row.identity_verified_at !== null,
    adult: isAdult(row.birth_date, new Date()),
    is_inspirer: view.is_inspirer,
    created_at: view.created_at,
    updated_at: view.updated_at,
    guardian_consent: row.guardian_consent,
    restrictions: row.guardian_consent === 'pending' ? ['guardian_consent_required'] : [],
  };
}

/** A real user view (register, then user/get), for the documentation's examples. */
export const userExample: UserView = {
  id: '019ab0c4-5e1f-7a3d-8c2b-6d4e9f0a1b2c',
  email: 'minji@example.com',
  username: '민지',
  slug: 'minji',
  gender: 2,
  bio: null,
  profile_picture: null,
  providers: [],
  has_password: true,
  email_verified: false,
  phone: null,
  phone_verified: false,
  identity_verified: false,
  adult: null,
  is_inspirer: false,
  created_at: '2026-11-23T12:40:05.123Z',
  updated_at: '2026-11-23T12:40:05.123Z',
  guardian_consent: null,
  restrictions: [],
};

export const signedInExample: SignedIn = {
  user: { ...userExample, api_token: 'Xq3tY8vB1nR6kP0wZ2sL9dF4hJ7mC5aE1gU3iO8yT6q' },
};

export const publicUserExample: PublicUserView = {
  id: userExample.id,
  username: userExample.username,
  slug: userExample.slug,
  gender: userExample.gender,
  bio: userExample.bio,
  profile_picture: userExample.profile_picture,
  is_inspirer: userExample.is_inspirer,
  created_at: userExample.created_at,
  updated_at: userExample.updated_at,
};
