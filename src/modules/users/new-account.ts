/**
 * A new user's row and the INSERT that writes it, apart from UsersRepo because two writers share them:
 * UsersRepo.insert (one user) and the email sign-up's one statement (src/account/sign-up/write.ts), which
 * chooses the slug in SQL with `firstFreeSlug`.
 */
import { type RawBuilder, sql } from 'kysely';
import type { GuardianConsentState } from '../../db/schema.js';
import type { TableInserter } from '../../db/transaction.js';
import { usernameSkeleton } from '../../lib/username-skeleton.js';

/** What a sign-up writes of a new user; every other column takes its default. */
export interface NewAccount {
  id: string;
  email: string;
  username: string;
  slug: string;
  gender: number;
  password_hash: string | null;
  /** The picture as JSON text (none: null, the column's default). */
  profile_picture?: string | null;
  /** The column's default is false. */
  email_verified?: boolean;
  /** `YYYY-MM-DD`, when the sign-up declared one. */
  birth_date?: string | null;
  /** `pending` for a child under 14 at sign-up (docs/identity.md); null otherwise. */
  guardian_consent?: GuardianConsentState | null;
}

/**
 * A new user's row as its INSERT writes it: the account with its username's skeleton, and every column a
 * sign-up may leave out given. The slug is a value, or an expression choosing one (`firstFreeSlug`), or — for
 * a statement that builds that expression — the candidates.
 */
export interface NewAccountRow<Slug = string> {
  id: string;
  email: string;
  username: string;
  username_skeleton: string;
  slug: Slug;
  gender: number;
  password_hash: string | null;
  profile_picture: string | null;
  email_verified: boolean;
  birth_date: string | null;
  guardian_consent: GuardianConsentState | null;
}

/**
 * The first of `candidates` (a text array) that no user has as a slug, in order, on the lower(slug) index;
 * the first candidate when all are taken (its INSERT then fails on the unique index, as a lost race does).
 *
 * Each candidate is a scalar subquery, one index probe, tried in order until one is free (usually the first).
 * Written as `NOT EXISTS`, PostgreSQL turned it into an anti-join, and the sign-up statement's generic plan
 * (a prepared statement, planned once per connection for an array of unknown length) hashed every user's
 * lower(slug) after a sequential scan of the table on every sign-up (seen with 1,000 users analysed, and
 * on a table grown from empty without fresh statistics; with 10,000 analysed it probed the index): a
 * sequential scan per sign-up in the bench (docs/performance.md). A scalar subquery is never made a join.
 */
export function firstFreeSlug(candidates: string[]): RawBuilder<string> {
  return sql<string>`coalesce((
    SELECT candidate FROM unnest(${candidates}::text[]) WITH ORDINALITY AS tried(candidate, n)
    WHERE (SELECT true FROM users WHERE lower(users.slug) = lower(tried.candidate) LIMIT 1) IS NULL
    ORDER BY n LIMIT 1), (${candidates}::text[])[1])`;
}

/** `user` as its row: the username's skeleton derived, the columns it left out at their defaults. */
export function accountRow<Slug>(user: Omit<NewAccount, 'slug'>, slug: Slug): NewAccountRow<Slug> {
  return {
    id: user.id,
    email: user.email,
    username: user.username,
    username_skeleton: usernameSkeleton(user.username),
    slug,
    gender: user.gender,
    password_hash: user.password_hash,
    profile_picture: user.profile_picture ?? null,
    email_verified: user.email_verified ?? false,
    birth_date: user.birth_date ?? null,
    guardian_consent: user.guardian_consent ?? null,
  };
}

/** The INSERT of a new user, returning the row; also the main statement of an email sign-up's one write. */
export function insertAccountQuery(db: TableInserter, row: NewAccountRow<string | RawBuilder<string>>) {
  return db
    .insertInto('users')
    .values({
      id: row.id,
      email: row.email,
      username: row.username,
      username_skeleton: row.username_skeleton,
      slug: row.slug,
      gender: row.gender,
      password_hash: row.password_hash,
      profile_picture: row.profile_picture,
      email_verified: row.email_verified,
      birth_date: row.birth_date,
      guardian_consent: row.guardian_consent,
    })
    .returningAll();
}
