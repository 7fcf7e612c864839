/**
 * Confirms with a provider that an access token is genuine, was issued to our app, and names the claimed user.
 * Resolves when all of that holds; otherwise throws InvalidCredentialsError (the provider says no) or
 * ProviderUnavailableError (we could not get a trustworthy answer).
 */
export interface ProviderVerifier {
  readonly name: string;
  verify(claimedUserId: string, token: string): Promise<void>;
}
