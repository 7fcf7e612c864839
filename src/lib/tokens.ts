import { hash, randomBytes } from 'node:crypto';

/** 256 random bits, base64url: shown to the client once, never stored. */
export function newApiToken(): string {
  return randomBytes(32).toString('base64url');
}

/**
 * Only this digest is stored. A plain SHA-256 (no salt, no slow hash) is right here: the token already has
 * 256 bits of entropy, and lookups must be one indexed equality match.
 */
export function hashApiToken(token: string): Buffer {
  // The one-shot digest: every authenticated request makes one, and a Hash object costs twice as much.
  return hash('sha256', token, 'buffer');
}
