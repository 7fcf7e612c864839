import { createHash, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import {
  hashRecoveryCode,
  newRecoveryCodes,
  normalizedRecoveryCode,
  RECOVERY_CODE_COUNT,
} from '../../src/lib/recovery-codes.js';
import { SecretBox, SecretBoxError } from '../../src/lib/secret-box.js';
import { newTotpSecret, otpauthUrl, totpSecretText, totpStepOf } from '../../src/lib/totp.js';
import { configError, TEST_SECRETS_KEY } from '../helpers/config.js';
import { base32Decode, totpCode } from '../helpers/totp.js';

describe("the tests' own RFC 6238 implementation", () => {
  // RFC 6238 Appendix B, SHA-1 (the seed is the ASCII of "12345678901234567890"), 8 digits.
  const seed = Buffer.from('12345678901234567890', 'ascii');
  it.each([
    [59, '94287082'],
    [1111111109, '07081804'],
    [1111111111, '14050471'],
    [1234567890, '89005924'],
    [2000000000, '69279037'],
    [20000000000, '65353130'],
  ])('T=%i gives %s', (time, code) => {
    expect(totpCode(seed, time, 8)).toBe(code);
  });

  it('reads base32 as RFC 4648 writes it', () => {
    expect(base32Decode('GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ')).toEqual(seed);
  });
});

describe('TOTP codes (lib/totp.ts)', () => {
  const secret = newTotpSecret();
  const now = 1_800_000_000_000;
  const step = Math.floor(now / 30_000);
  const codeAt = (offsetSteps: number) => totpCode(secret, now / 1000 + offsetSteps * 30);

  it('makes 160-bit secrets, written in base32', () => {
    expect(secret).toHaveLength(20);
    expect(base32Decode(totpSecretText(secret))).toEqual(secret);
  });

  it('gives the step of a code from this step or one either side, and nothing further', () => {
    expect(totpStepOf(secret, codeAt(0), now)).toBe(step);
    expect(totpStepOf(secret, codeAt(-1), now)).toBe(step - 1);
    expect(totpStepOf(secret, codeAt(1), now)).toBe(step + 1);
    const far = codeAt(3);
    if (![codeAt(-1), codeAt(0), codeAt(1)].includes(far))
      expect(totpStepOf(secret, far, now)).toBeUndefined();
  });

  it('accepts a code from 30 s before or after now and refuses one from 60 s before or after', () => {
    // RFC 6238's seed, whose five codes around `now` all differ: no refusal below is a coincidence.
    const seed = Buffer.from('12345678901234567890', 'ascii');
    const codeFrom = (offsetSeconds: number) => totpCode(seed, now / 1000 + offsetSeconds);
    expect(new Set([-60, -30, 0, 30, 60].map(codeFrom)).size).toBe(5);
    expect(totpStepOf(seed, codeFrom(-30), now)).toBe(step - 1);
    expect(totpStepOf(seed, codeFrom(30), now)).toBe(step + 1);
    expect(totpStepOf(seed, codeFrom(-60), now)).toBeUndefined();
    expect(totpStepOf(seed, codeFrom(60), now)).toBeUndefined();
  });

  it('takes a code with a space in it and refuses what is not 6 digits', () => {
    const code = codeAt(0);
    expect(totpStepOf(secret, `${code.slice(0, 3)} ${code.slice(3)}`, now)).toBe(step);
    expect(totpStepOf(secret, `${code}0`, now)).toBeUndefined();
    expect(totpStepOf(secret, 'abcdef', now)).toBeUndefined();
    expect(totpStepOf(secret, '', now)).toBeUndefined();
  });

  it('writes the otpauth URL authenticators read: SHA1, 6 digits, 30 s, issuer and account', () => {
    const url = new URL(otpauthUrl(secret, 'accounts', 'minji@example.com'));
    expect(url.protocol).toBe('otpauth:');
    expect(url.host).toBe('totp');
    expect(decodeURIComponent(url.pathname)).toBe('/accounts:minji@example.com');
    expect(Object.fromEntries(url.searchParams)).toEqual({
      issuer: 'accounts',
      secret: totpSecretText(secret),
      algorithm: 'SHA1',
      digits: '6',
      period: '30',
    });
  });
});

describe('sealed secrets (lib/secret-box.ts)', () => {
  const box = SecretBox.withKey(Buffer.from(TEST_SECRETS_KEY, 'hex'));
  const secret = randomBytes(20);

  it('opens what it sealed, with a fresh IV each time and the key version in front', () => {
    const sealed = box.seal(secret, 'totp:user-1');
    expect(sealed).toMatch(/^v1\.[\w-]{16}\.[\w-]+\.[\w-]{22}$/);
    expect(box.seal(secret, 'totp:user-1')).not.toBe(sealed);
    expect(box.open(sealed, 'totp:user-1')).toEqual(secret);
  });

  it('refuses a tampered value, another key, another context and an unknown version', () => {
    const sealed = box.seal(secret, 'totp:user-1');
    const [version, iv, ciphertext, tag] = sealed.split('.') as [string, string, string, string];
    const flipped = Buffer.from(ciphertext, 'base64url');
    flipped[0] = (flipped[0] as number) ^ 1;
    expect(() =>
      box.open([version, iv, flipped.toString('base64url'), tag].join('.'), 'totp:user-1'),
    ).toThrow(SecretBoxError);
    const otherTag = Buffer.from(tag, 'base64url');
    otherTag[0] = (otherTag[0] as number) ^ 1;
    expect(() =>
      box.open([version, iv, ciphertext, otherTag.toString('base64url')].join('.'), 'totp:user-1'),
    ).toThrow(SecretBoxError);
    expect(() => SecretBox.withKey(randomBytes(32)).open(sealed, 'totp:user-1')).toThrow(SecretBoxError);
    expect(() => box.open(sealed, 'totp:user-2')).toThrow(SecretBoxError);
    expect(() => box.open(sealed.replace(/^v1/, 'v2'), 'totp:user-1')).toThrow(/unknown key version/);
    expect(() => box.open('v1.abc', 'totp:user-1')).toThrow(/malformed/);
  });
});

describe('recovery codes (lib/recovery-codes.ts)', () => {
  it('makes 10 distinct codes of 10 base32 characters (50 bits), shown as xxxxx-xxxxx', () => {
    const codes = newRecoveryCodes();
    expect(codes).toHaveLength(RECOVERY_CODE_COUNT);
    expect(new Set(codes).size).toBe(RECOVERY_CODE_COUNT);
    for (const code of codes) expect(code).toMatch(/^[a-z2-7]{5}-[a-z2-7]{5}$/);
  });

  it('ignores case, spaces and hyphens, and refuses what cannot be a code', () => {
    expect(normalizedRecoveryCode(' AB2CD-EF3GH ')).toBe('ab2cdef3gh');
    expect(normalizedRecoveryCode('ab2cd ef3gh')).toBe('ab2cdef3gh');
    expect(normalizedRecoveryCode('ab2cd-ef3g')).toBeUndefined();
    expect(normalizedRecoveryCode('ab1cd-ef3gh')).toBeUndefined();
  });

  it('stores a SHA-256 digest, the same for every way of typing one code', () => {
    const digest = hashRecoveryCode('ab2cdef3gh');
    expect(digest).toHaveLength(32);
    expect(hashRecoveryCode(normalizedRecoveryCode('AB2CD-EF3GH') as string)).toEqual(digest);
    // Under its own label: the digest of a code is no bare SHA-256 of it that another table might hold.
    expect(digest).toEqual(createHash('sha256').update('recovery-code\nab2cdef3gh').digest());
  });
});

describe('SECRETS_KEY and APP_NAME', () => {
  it('is optional; when set, 64 hex characters become the 32-byte key', () => {
    const config = loadConfig({ SECRETS_KEY: TEST_SECRETS_KEY.toUpperCase(), APP_NAME: 'Minji Talk' });
    expect(config.secondFactor).toEqual({
      secretsKey: Buffer.from(TEST_SECRETS_KEY, 'hex'),
      keyFile: undefined,
      issuer: 'Minji Talk',
    });
  });

  it('unset, names its file in DATA_DIR on the embedded database, and nothing on PostgreSQL', () => {
    expect(loadConfig({ DATA_DIR: '/srv/accounts' }).secondFactor).toEqual({
      secretsKey: undefined,
      keyFile: '/srv/accounts/secrets.key',
      issuer: 'accounts',
    });
    const postgres = loadConfig({ DATA_DIR: '/srv/accounts', DATABASE_URL: 'postgres://db/accounts' });
    expect(postgres.secondFactor).toEqual({ secretsKey: undefined, keyFile: undefined, issuer: 'accounts' });
  });

  it('refuses a malformed key at start, without echoing it', () => {
    for (const bad of [TEST_SECRETS_KEY.slice(2), `${TEST_SECRETS_KEY}00`, `${TEST_SECRETS_KEY.slice(1)}g`]) {
      const error = configError({ SECRETS_KEY: bad });
      expect(error.variable).toBe('SECRETS_KEY');
      expect(error.message).toContain('64 hexadecimal characters');
      expect(error.message).not.toContain(bad);
    }
    expect(configError({ APP_NAME: 'a:b' }).variable).toBe('APP_NAME');
  });
});
