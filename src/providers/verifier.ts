/**
 * Confirms with a provider that an access token is genuine, was issued to our app, and names the claimed user.
 * Resolves when all of that holds; otherwise throws InvalidCredentialsError (the provider says no) or
 * ProviderUnavailableError (we could not get a trustworthy answer).
 */
export interface ProviderVerifier {
  readonly name: string;
  verify(claimedUserId: string, token: string): Promise<VerifiedIdentity>;
}

/** What the provider says of the identity beyond its id. */
export interface VerifiedIdentity {
  /** The address the provider holds for the user, if it told us. */
  email: string | undefined;
  /** The provider asserts the user proved they own `email` (OIDC `email_verified`). */
  emailVerified: boolean;
}

/** A provider that tells nothing about the user's email. */
export const NO_EMAIL: VerifiedIdentity = { email: undefined, emailVerified: false };
