import { randomBytes } from 'node:crypto';
import { Secret, TOTP } from 'otpauth';

/**
 * RFC 6238 as every authenticator app reads it by default: HMAC-SHA-1, 6 digits, 30-second steps (apps that
 * honour other parameters are few, and SHA-1 is sound inside HMAC).
 */
const ALGORITHM = 'SHA1';
const DIGITS = 6;
const PERIOD_SECONDS = 30;
/** Steps either side of now a code may come from: a phone's clock a little off, a code typed as it turns. */
const WINDOW = 1;
/** RFC 4226 asks for at least 128 bits and recommends 160: the SHA-1 block's natural key size. */
const SECRET_BYTES = 20;

const CODE = /^\d{6}$/;

export function newTotpSecret(): Buffer {
  return randomBytes(SECRET_BYTES);
}

function secretOf(bytes: Buffer): Secret {
  // A copy in an ArrayBuffer of its own: a pooled Buffer's `.buffer` holds other bytes too.
  return new Secret({ buffer: new Uint8Array(bytes).buffer });
}

/** The secret as a person types it into an authenticator (RFC 4648 base32, no padding). */
export function totpSecretText(secret: Buffer): string {
  return secretOf(secret).base32;
}

/** The `otpauth://totp/…` URL an authenticator scans: `label` is the account (the email), `issuer` the service. */
export function otpauthUrl(secret: Buffer, issuer: string, label: string): string {
  return new TOTP({
    issuer,
    label,
    secret: secretOf(secret),
    algorithm: ALGORITHM,
    digits: DIGITS,
    period: PERIOD_SECONDS,
  }).toString();
}

/**
 * The time step `code` belongs to (within WINDOW of `nowMs`), or undefined when it belongs to none. The
 * caller accepts the code only if this step is later than the last one accepted for the account: that is
 * what makes a code single-use (RFC 6238 §5.2).
 */
export function totpStepOf(secret: Buffer, code: string, nowMs: number): number | undefined {
  // Apps show the code as "123 456"; people paste it so.
  const digits = code.replace(/\s/g, '');
  if (!CODE.test(digits)) return undefined;
  const delta = TOTP.validate({
    token: digits,
    secret: secretOf(secret),
    algorithm: ALGORITHM,
    digits: DIGITS,
    period: PERIOD_SECONDS,
    timestamp: nowMs,
    window: WINDOW,
  });
  if (delta === null) return undefined;
  return TOTP.counter({ period: PERIOD_SECONDS, timestamp: nowMs }) + delta;
}
