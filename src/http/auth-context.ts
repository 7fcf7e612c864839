import type { UserRow } from '../db/schema.js';

/**
 * Who made a request, once their token checked out: the user's row as it was read with the token, and the
 * token's id (the session). Services that act for the signed-in user take it as their first argument (as
 * immich's take their AuthDto), so no route reaches into an untyped user.
 */
export interface AuthContext {
  readonly user: UserRow;
  readonly tokenId: string;
  /** The user's linked provider names, in order, read in the same query as the token (saves user/get a round trip). */
  readonly linkedProviders?: readonly string[];
}
