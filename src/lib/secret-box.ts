import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

/** Why a sealed value could not be opened: never which byte, never the key. */
export class SecretBoxError extends Error {
  constructor(reason: string) {
    super(`sealed secret cannot be opened: ${reason}`);
    this.name = 'SecretBoxError';
  }
}

const IV_BYTES = 12;
const TAG_BYTES = 16;
const KEY_BYTES = 32;

/**
 * AES-256-GCM for secrets the service must read back (TOTP secrets): unlike a password, a TOTP secret has to be
 * known to check a code, so it is encrypted rather than hashed, and a copy of the database alone opens nothing.
 *
 * A sealed value reads `v<version>.<iv>.<ciphertext>.<tag>` (base64url parts): a random 96-bit IV per value
 * (GCM's own size; never reused under one key), the 128-bit tag checked on opening, and the key's version in
 * front so that a second key can be added later and old values re-sealed at leisure. `context` is bound to
 * the value as associated data (the owner's id): a sealed secret copied onto another row does not open there.
 */
export class SecretBox {
  private readonly keys: ReadonlyMap<number, Buffer>;

  constructor(
    /** The version new values are sealed under. */
    private readonly currentVersion: number,
    keys: ReadonlyMap<number, Buffer>,
  ) {
    for (const key of keys.values()) {
      if (key.length !== KEY_BYTES) throw new Error(`a SecretBox key must be ${KEY_BYTES} bytes`);
    }
    if (!keys.has(currentVersion)) throw new Error(`no key of version ${currentVersion}`);
    this.keys = keys;
  }

  /** One key, version 1 (SECRETS_KEY). */
  static withKey(key: Buffer): SecretBox {
    return new SecretBox(1, new Map([[1, key]]));
  }

  seal(plaintext: Buffer, context: string): string {
    const key = this.keys.get(this.currentVersion) as Buffer;
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
    cipher.setAAD(Buffer.from(context, 'utf8'));
    const ciphertext = Buffer.concat([cipher.update(plaintext), cipher.final()]);
    return [`v${this.currentVersion}`, iv, ciphertext, cipher.getAuthTag()]
      .map((part) => (typeof part === 'string' ? part : part.toString('base64url')))
      .join('.');
  }

  /** Throws SecretBoxError when the value was altered, sealed under another key, or for another context. */
  open(sealed: string, context: string): Buffer {
    const [version, iv, ciphertext, tag, ...rest] = sealed.split('.');
    const key = this.keys.get(Number(/^v(\d+)$/.exec(version ?? '')?.[1]));
    if (!key) throw new SecretBoxError('unknown key version');
    if (iv === undefined || ciphertext === undefined || tag === undefined || rest.length > 0) {
      throw new SecretBoxError('malformed');
    }
    const ivBytes = Buffer.from(iv, 'base64url');
    const tagBytes = Buffer.from(tag, 'base64url');
    if (ivBytes.length !== IV_BYTES || tagBytes.length !== TAG_BYTES) throw new SecretBoxError('malformed');
    const decipher = createDecipheriv('aes-256-gcm', key, ivBytes, { authTagLength: TAG_BYTES });
    decipher.setAAD(Buffer.from(context, 'utf8'));
    decipher.setAuthTag(tagBytes);
    try {
      return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]);
    } catch {
      // GCM's tag did not match: altered, another key, or another context.
      throw new SecretBoxError('authentication failed');
    }
  }
}
