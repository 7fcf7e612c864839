import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { deriveKey } from '../../src/lib/derived-key.js';
import { SecretBox, SecretBoxError } from '../../src/lib/secret-box.js';

/** Every box is made inside its test: a constructor that throws must fail a test, not the file's import. */
describe('sealed secrets at the edges', () => {
  const secret = Buffer.from('a TOTP secret of twenty b');

  it('takes 32-byte keys only, and needs the key of its current version', () => {
    expect(() => SecretBox.withKey(randomBytes(31))).toThrow('a SecretBox key must be 32 bytes');
    expect(() => new SecretBox(2, new Map([[1, randomBytes(32)]]))).toThrow('no key of version 2');
    expect(SecretBox.withKey(randomBytes(32)).seal(secret, 'user-1')).toMatch(/^v1\.[\w-]+\.[\w-]+\.[\w-]+$/);
  });

  it('opens a value sealed under an older version, by its version', () => {
    const old = randomBytes(32);
    const sealed = SecretBox.withKey(old).seal(secret, 'user-1');
    const box = new SecretBox(
      12,
      new Map([
        [1, old],
        [12, randomBytes(32)],
      ]),
    );
    expect(box.open(sealed, 'user-1')).toEqual(secret);
    const newer = box.seal(secret, 'user-1');
    expect(newer.startsWith('v12.')).toBe(true);
    expect(box.open(newer, 'user-1')).toEqual(secret);
  });

  it('refuses a value of an unknown or garbled version', () => {
    const box = SecretBox.withKey(randomBytes(32));
    const [, ...parts] = box.seal(secret, 'user-1').split('.');
    for (const version of ['v2', 'x1', 'v1x', 'xv1', '1', '']) {
      expect(() => box.open([version, ...parts].join('.'), 'user-1'), version).toThrow(
        'sealed secret cannot be opened: unknown key version',
      );
    }
  });

  it('refuses a value with a part missing or one too many, or an IV or tag of the wrong size', () => {
    const box = SecretBox.withKey(randomBytes(32));
    const [version = '', iv = '', ciphertext = '', tag = ''] = box.seal(secret, 'user-1').split('.');
    const short = Buffer.alloc(8).toString('base64url');
    for (const parts of [
      [version],
      [version, iv],
      [version, iv, ciphertext],
      [version, iv, ciphertext, tag, tag],
      [version, short, ciphertext, tag],
      [version, iv, ciphertext, short],
    ]) {
      const error = (() => {
        try {
          box.open(parts.join('.'), 'user-1');
        } catch (thrown) {
          return thrown;
        }
      })();
      expect(error).toBeInstanceOf(SecretBoxError);
      expect((error as SecretBoxError).name).toBe('SecretBoxError');
      expect((error as Error).message).toBe('sealed secret cannot be opened: malformed');
    }
  });

  it('refuses another context, and says only that it failed', () => {
    const box = SecretBox.withKey(randomBytes(32));
    const sealed = box.seal(secret, 'user-1');
    expect(() => box.open(sealed, 'user-2')).toThrow(
      /^sealed secret cannot be opened: authentication failed$/,
    );
    // A context in other characters than ASCII is bound as UTF-8 on both sides.
    expect(box.open(box.seal(secret, '사용자'), '사용자')).toEqual(secret);
  });

  it('derives one key per purpose, the same every time', () => {
    const master = randomBytes(32);
    const cursors = deriveKey(master, 'cursors');
    expect(cursors).toHaveLength(32);
    expect(deriveKey(master, 'cursors')).toEqual(cursors);
    expect(deriveKey(master, 'webhooks')).not.toEqual(cursors);
    expect(deriveKey(randomBytes(32), 'cursors')).not.toEqual(cursors);
  });
});
