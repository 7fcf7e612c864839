import { hkdfSync } from 'node:crypto';

/**
 * A key of its own for one purpose, derived from SECRETS_KEY with HKDF-SHA256 (RFC 5869): the master key is
 * never used for two things, and learning one derived key tells nothing of the master or of another purpose's
 * key. `purpose` is the HKDF info; changing it changes the key (and so every value made with it).
 */
export function deriveKey(secretsKey: Buffer, purpose: string): Buffer {
  return Buffer.from(hkdfSync('sha256', secretsKey, Buffer.alloc(0), `accounts ${purpose}`, 32));
}
