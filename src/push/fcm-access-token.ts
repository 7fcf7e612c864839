import { SignJWT } from 'jose';
import type { FcmServiceAccount } from '../config/push.js';
import { fetchFailure, readJsonBody } from './http.js';

export const FCM_SCOPE = 'https://www.googleapis.com/auth/firebase.messaging';

/** The longest lifetime Google accepts for a JWT-bearer assertion. */
const ASSERTION_LIFETIME_S = 3600;

/** Renew this long before the token expires, so a push never leaves with a token that dies on the way. */
const REFRESH_MARGIN_S = 60;

/** Getting an access token failed; the message says why in words fit for a delivery's `error`. */
export class AccessTokenError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AccessTokenError';
  }
}

export interface AccessTokenOptions {
  serviceAccount: FcmServiceAccount;
  tokenUrl: string;
  timeoutMs: number;
  /** Milliseconds since the epoch; decides when the cached token is stale (tests move it forward). */
  now?: () => number;
}

/**
 * OAuth 2.0 access tokens for FCM by the JWT-bearer grant (RFC 7523) with a service account: an RS256 JWT
 * signed here with the account's key is exchanged at the token endpoint. The token is cached until shortly
 * before it expires, and only one exchange is in flight at a time: concurrent sends wait for the same one
 * instead of each asking Google (which rate-limits token requests).
 */
export class FcmAccessTokens {
  private cached: { token: string; staleAt: number } | undefined;
  private inFlight: Promise<string> | undefined;
  private readonly now: () => number;

  constructor(private readonly options: AccessTokenOptions) {
    this.now = options.now ?? Date.now;
  }

  /** A token valid for a while yet: the cached one, or a fresh one. Throws AccessTokenError. */
  get(): Promise<string> {
    if (this.cached && this.now() < this.cached.staleAt) return Promise.resolve(this.cached.token);
    this.inFlight ??= this.exchange().finally(() => {
      this.inFlight = undefined;
    });
    return this.inFlight;
  }

  /** The API refused this token (revoked, or expired early): forget it, unless a newer one replaced it. */
  invalidate(token: string): void {
    if (this.cached?.token === token) this.cached = undefined;
  }

  private async assertion(): Promise<string> {
    const { serviceAccount, tokenUrl } = this.options;
    // The JWT's times are the real clock's: the token endpoint judges them against its own.
    const issuedAt = Math.floor(Date.now() / 1000);
    return new SignJWT({ scope: FCM_SCOPE })
      .setProtectedHeader({ alg: 'RS256', typ: 'JWT' })
      .setIssuer(serviceAccount.clientEmail)
      .setAudience(tokenUrl)
      .setIssuedAt(issuedAt)
      .setExpirationTime(issuedAt + ASSERTION_LIFETIME_S)
      .sign(serviceAccount.privateKey);
  }

  private async exchange(): Promise<string> {
    const { tokenUrl, timeoutMs } = this.options;
    const body = new URLSearchParams({
      grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer',
      assertion: await this.assertion(),
    });
    let response: Response;
    let json: unknown;
    try {
      response = await fetch(tokenUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
        body,
        redirect: 'error',
        signal: AbortSignal.timeout(timeoutMs),
      });
      json = await readJsonBody(response);
    } catch (error) {
      throw new AccessTokenError(fetchFailure(error, 'The FCM token endpoint', timeoutMs));
    }
    const answer = (json ?? {}) as Record<string, unknown>;
    if (!response.ok) {
      // OAuth error codes (`invalid_grant`, …) are safe to repeat; descriptions may quote the request.
      const code =
        typeof answer.error === 'string' && /^[a-z_]{1,64}$/.test(answer.error) ? ` ${answer.error}` : '';
      throw new AccessTokenError(
        `The FCM token endpoint refused our service account (HTTP ${response.status}${code}).`,
      );
    }
    const expiresIn = Number(answer.expires_in);
    if (typeof answer.access_token !== 'string' || answer.access_token === '' || !(expiresIn > 0)) {
      throw new AccessTokenError('The FCM token endpoint answered without an access token.');
    }
    // Short-lived tokens (never from Google, but from a test server) keep half their life rather than none.
    const keepFor = expiresIn - Math.min(REFRESH_MARGIN_S, expiresIn / 2);
    this.cached = { token: answer.access_token, staleAt: this.now() + keepFor * 1000 };
    return answer.access_token;
  }
}
