import { InvalidCredentialsError, ProviderUnavailableError } from '../errors.js';
import type { UserinfoProviderConfig } from './config.js';
import { atPath, getProviderJson, idString } from './http.js';
import { NO_EMAIL, type ProviderVerifier, type VerifiedIdentity } from './verifier.js';

/**
 * The "userinfo" kind: the provider's user endpoint, called with the token, must name the claimed user; when a
 * token-info endpoint and our client ids are configured, it must also name one of our client ids, so a token
 * another app obtained for the same person cannot sign in here.
 */
export class UserinfoVerifier implements ProviderVerifier {
  readonly name: string;

  constructor(
    private readonly config: UserinfoProviderConfig,
    private readonly timeoutMs: number,
  ) {
    this.name = config.name;
  }

  /** Userinfo shapes differ by provider (only the id path is configured): no email claim is trusted from it. */
  async verify(claimedUserId: string, token: string): Promise<VerifiedIdentity> {
    const headers = { authorization: `Bearer ${token}` };
    const { tokeninfoUrl } = this.config;
    // Both questions at once: the slower one bounds the wait, not their sum.
    const [userinfo, tokeninfo] = await Promise.all([
      getProviderJson(this.config.userinfoUrl, headers, this.timeoutMs),
      tokeninfoUrl === undefined ? undefined : getProviderJson(tokeninfoUrl, headers, this.timeoutMs),
    ]);
    const userId = idString(atPath(userinfo, this.config.userIdPath));
    if (userId === undefined) {
      throw new ProviderUnavailableError(`${this.name} userinfo has no id at "${this.config.userIdPath}"`);
    }
    if (userId !== claimedUserId) throw new InvalidCredentialsError();
    if (this.config.clientIds.length > 0) {
      const clientId = idString(atPath(tokeninfo, this.config.clientIdPath));
      if (clientId === undefined) {
        throw new ProviderUnavailableError(
          `${this.name} tokeninfo has no client id at "${this.config.clientIdPath}"`,
        );
      }
      if (!this.config.clientIds.includes(clientId)) throw new InvalidCredentialsError();
    }
    return NO_EMAIL;
  }
}
