import { createLocalJWKSet, type JWTPayload, jwtVerify, SignJWT } from 'jose';
import type { AccessTokensConfig } from '../../config/access-tokens.js';
import { AccessTokensNotConfiguredError, UnauthenticatedError } from '../../errors.js';
import type { AuthContext } from '../../http/auth-context.js';
import { newId } from '../../lib/ids.js';
import { hashApiToken } from '../../lib/tokens.js';
import type { SigningKeys } from '../../modules/signing-keys/service.js';
import type { SessionsRepo } from '../../modules/tokens/session-repo.js';
import { type SessionClaims, seconds, sessionClaims } from './claims.js';

export interface IssuedAccessToken {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
}

/** RFC 7662's answer: `{"active": false}`, or the token's claims. */
export type Introspection =
  | { active: false }
  | (SessionClaims & {
      active: true;
      iss: string;
      aud?: string;
      iat: number;
      exp?: number;
      jti?: string;
      token_type: 'access_token' | 'api_token';
    });

export interface AccessTokensOptions {
  keys: SigningKeys;
  sessions: SessionsRepo;
  config: AccessTokensConfig;
  now?: () => Date;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** A digest no API token has: the lookup by digest of a session asked for by id. */
const NO_TOKEN = Buffer.alloc(32);

/**
 * Access tokens for the app's other services (docs/tokens.md): a short-lived JWT a service verifies alone
 * against the JWKS, made from a live session; and the introspection of either kind of token.
 */
export class AccessTokens {
  private readonly now: () => Date;

  constructor(private readonly options: AccessTokensOptions) {
    this.now = options.now ?? (() => new Date());
  }

  /** A signed access token for the signed-in session. */
  async issue(auth: AuthContext): Promise<IssuedAccessToken> {
    const { keys, sessions, config } = this.options;
    if (!keys.configured) throw new AccessTokensNotConfiguredError();
    // The session as it is now (its method and sign-in time are not part of the request's context).
    const session = await sessions.findLive({ tokenHash: NO_TOKEN, id: auth.tokenId });
    if (session === undefined) throw new UnauthenticatedError();
    const key = await keys.current();
    const now = this.now();
    const expiresIn = Math.floor(config.ttlMs / 1000);
    const iat = seconds(now);
    const { sub, sid, ...claims } = sessionClaims(session, now);
    const token = await new SignJWT({ sid, ...claims })
      .setProtectedHeader({ alg: key.alg, kid: key.kid, typ: 'at+jwt' })
      .setIssuer(config.issuer)
      .setSubject(sub)
      .setAudience(config.audience)
      .setIssuedAt(iat)
      .setExpirationTime(iat + expiresIn)
      .setJti(newId())
      .sign(key.privateKey);
    return { access_token: token, token_type: 'Bearer', expires_in: expiresIn };
  }

  /**
   * Whether a token (an API token or an access token) is active, and its claims. Every token takes the
   * same path: a signature check (which fails at once for an API token), then one lookup of the same shape
   * (by the token's digest, and by the access token's session id), so an unknown, revoked or expired token
   * answers in the time an active one does.
   */
  async introspect(token: string): Promise<Introspection> {
    const { keys, sessions, config } = this.options;
    const now = this.now();
    const verified = keys.configured && token.length <= 4096 ? await this.verify(token, now) : undefined;
    const sid = typeof verified?.sid === 'string' && UUID.test(verified.sid) ? verified.sid : undefined;
    const session = await sessions.findLive({ tokenHash: hashApiToken(token), id: sid });
    if (session === undefined) return { active: false };
    const claims = sessionClaims(session, now);
    if (verified !== undefined) {
      if (session.tokenId !== sid || verified.sub !== claims.sub) return { active: false };
      return {
        active: true,
        token_type: 'access_token',
        iss: config.issuer,
        aud: config.audience,
        ...claims,
        iat: verified.iat ?? seconds(now),
        ...(verified.exp === undefined ? {} : { exp: verified.exp }),
        ...(verified.jti === undefined ? {} : { jti: verified.jti }),
      };
    }
    return {
      active: true,
      token_type: 'api_token',
      iss: config.issuer,
      ...claims,
      iat: seconds(session.createdAt),
      ...(session.expiresAt === null ? {} : { exp: seconds(session.expiresAt) }),
    };
  }

  private async verify(token: string, now: Date): Promise<JWTPayload | undefined> {
    const { keys, config } = this.options;
    try {
      const jwks = createLocalJWKSet({ keys: await keys.published() });
      const { payload } = await jwtVerify(token, jwks, {
        issuer: config.issuer,
        audience: config.audience,
        typ: 'at+jwt',
        currentDate: now,
      });
      return payload;
    } catch {
      return undefined;
    }
  }
}
