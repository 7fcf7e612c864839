import { createRemoteJWKSet, customFetch, errors, type JWTVerifyGetKey, jwtVerify } from 'jose';
import { InvalidCredentialsError, ProviderUnavailableError } from '../errors.js';
import type { IdTokenProviderConfig } from './config.js';
import { getProviderJson } from './http.js';
import type { ProviderVerifier, VerifiedIdentity } from './verifier.js';

/** Asymmetric algorithms only: an HMAC "key" from a public JWKS would let anyone sign. */
const ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA'];

/** Clocks drift; a minute is what OIDC libraries commonly allow around `exp`, `iat` and `nbf`. */
const CLOCK_TOLERANCE_SECONDS = 60;

/** jose errors that mean "we could not get the provider's keys", as opposed to "this token is bad". */
const UNAVAILABLE_CODES = new Set([errors.JWKSTimeout.code, errors.JWKSInvalid.code]);

/**
 * The "id-token" kind: the token field carries an OIDC ID token, checked against the provider's JWKS (cached,
 * and fetched again when a token names a key id we do not know, at most once per cooldown), its issuer, our
 * audience, its expiry, and `sub` equal to the claimed user id.
 */
export class IdTokenVerifier implements ProviderVerifier {
  readonly name: string;
  private readonly keys: JWTVerifyGetKey;

  constructor(
    private readonly config: IdTokenProviderConfig,
    timeoutMs: number,
    cooldownMs: number,
  ) {
    this.name = config.name;
    this.keys = createRemoteJWKSet(new URL(config.jwksUrl), {
      timeoutDuration: timeoutMs,
      cooldownDuration: cooldownMs,
      // Our own fetch, so an unreachable, failing or garbage-answering JWKS is classified like userinfo's.
      [customFetch]: async (url: string) => {
        const body = await getProviderJson(url, {}, timeoutMs).catch((error: unknown) => {
          // A JWKS endpoint refusing us is not the user's fault: it is the provider being unusable.
          if (error instanceof InvalidCredentialsError) throw new ProviderUnavailableError('JWKS refused');
          throw error;
        });
        return Response.json(body);
      },
    });
  }

  async verify(claimedUserId: string, token: string): Promise<VerifiedIdentity> {
    let subject: string | undefined;
    let identity: VerifiedIdentity;
    try {
      const { payload } = await jwtVerify(token, this.keys, {
        issuer: this.config.issuer,
        audience: this.config.audiences,
        algorithms: ALGORITHMS,
        clockTolerance: CLOCK_TOLERANCE_SECONDS,
        requiredClaims: ['exp', 'sub'],
      });
      subject = payload.sub;
      identity = emailClaims(payload);
    } catch (error) {
      if (error instanceof ProviderUnavailableError) throw error;
      if (error instanceof errors.JOSEError && UNAVAILABLE_CODES.has(error.code)) {
        throw new ProviderUnavailableError(`${this.name} JWKS unusable`, error);
      }
      if (error instanceof errors.JOSEError) throw new InvalidCredentialsError();
      throw error;
    }
    if (subject !== claimedUserId) throw new InvalidCredentialsError();
    return identity;
  }
}

/**
 * The OIDC `email` and `email_verified` claims of a verified ID token. Some providers send the flag as the
 * string "true"; anything else than true or "true" is not an assertion.
 */
function emailClaims(payload: Record<string, unknown>): VerifiedIdentity {
  const email = typeof payload.email === 'string' && payload.email !== '' ? payload.email : undefined;
  const flag = payload.email_verified;
  return { email, emailVerified: email !== undefined && (flag === true || flag === 'true') };
}
