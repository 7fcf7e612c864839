import { ConfigError, type Env, raw } from './env.js';

/**
 * The second factor (TOTP): `SECRETS_KEY` encrypts the TOTP secrets at rest; `APP_NAME` is the issuer an
 * authenticator app shows beside the account.
 */
export interface SecondFactorConfig {
  /** 32 bytes; undefined = two-factor endpoints answer 503 `second_factor_not_configured`. */
  secretsKey: Buffer | undefined;
  /** The issuer in the otpauth:// URL (APP_NAME). */
  issuer: string;
}

const HEX_KEY = /^[0-9a-fA-F]{64}$/;

export function parseSecondFactor(env: Env): SecondFactorConfig {
  const key = raw(env, 'SECRETS_KEY');
  if (key !== undefined && !HEX_KEY.test(key)) {
    // Never echo the value: it is a secret.
    throw new ConfigError(
      'SECRETS_KEY',
      'must be 64 hexadecimal characters (32 random bytes, as `openssl rand -hex 32` prints them)',
    );
  }
  const issuer = raw(env, 'APP_NAME') ?? 'accounts';
  if (issuer.length > 64 || issuer.includes(':')) {
    // A colon would split the otpauth label ("issuer:account") in two.
    throw new ConfigError('APP_NAME', `must be at most 64 characters without ":" (got "${issuer}")`);
  }
  return { secretsKey: key === undefined ? undefined : Buffer.from(key, 'hex'), issuer };
}
