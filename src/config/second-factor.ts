import path from 'node:path';
import { ConfigError, type Env, raw } from './env.js';

/**
 * The second factor (TOTP): `SECRETS_KEY` encrypts the TOTP secrets at rest; `APP_NAME` is the issuer an
 * authenticator app shows beside the account.
 */
export interface SecondFactorConfig {
  /** 32 bytes; undefined = two-factor endpoints answer 503 `second_factor_not_configured`. */
  secretsKey: Buffer | undefined;
  /**
   * Where the key is kept when SECRETS_KEY is unset on the embedded database (`DATA_DIR/secrets.key`): read,
   * or made on the first start, when the process opens its database (db/secrets-key-file.ts). undefined when
   * SECRETS_KEY is set, or on PostgreSQL, where every instance must be given the same key.
   */
  keyFile: string | undefined;
  /** The issuer in the otpauth:// URL (APP_NAME). */
  issuer: string;
}

/** 32 bytes as 64 hexadecimal characters, as `openssl rand -hex 32` prints them. */
export const HEX_KEY = /^[0-9a-fA-F]{64}$/;

/** The name of the key file in DATA_DIR. */
export const SECRETS_KEY_FILE = 'secrets.key';

/** How to make a key, for the messages that ask for one. */
export const MAKE_SECRETS_KEY = 'make one with `openssl rand -hex 32`, the same for every instance';

/** `embeddedDataDir`: DATA_DIR when the database is the embedded one (no DATABASE_URL), else undefined. */
export function parseSecondFactor(env: Env, embeddedDataDir?: string): SecondFactorConfig {
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
  return {
    secretsKey: key === undefined ? undefined : Buffer.from(key, 'hex'),
    keyFile:
      key === undefined && embeddedDataDir !== undefined
        ? path.join(embeddedDataDir, SECRETS_KEY_FILE)
        : undefined,
    issuer,
  };
}
