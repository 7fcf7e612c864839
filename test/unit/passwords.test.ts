import commonPasswordList from 'fxa-common-password-list';
import { describe, expect, it } from 'vitest';
import { isCommonPassword, PasswordHasher } from '../../src/lib/passwords.js';

/** The cheapest cost argon2 allows: these tests are about behaviour, not strength. */
const CHEAP = { memoryKib: 1024, timeCost: 1, parallelism: 1 };

describe('PasswordHasher', () => {
  const hasher = new PasswordHasher(CHEAP);

  it('hashes with argon2id at the configured cost, salted', async () => {
    const first = await hasher.hash('correct horse battery');
    const second = await hasher.hash('correct horse battery');
    expect(first).toMatch(/^\$argon2id\$v=19\$m=1024,t=1,p=1\$/);
    expect(first).not.toBe(second);
    expect(first).not.toContain('correct horse battery');
  });

  it('verifies the right password and refuses any other', async () => {
    const stored = await hasher.hash(' spaced password ');
    expect(await hasher.verify(stored, ' spaced password ')).toBe(true);
    expect(await hasher.verify(stored, 'spaced password')).toBe(false);
    expect(await hasher.verify(stored, ' SPACED PASSWORD ')).toBe(false);
  });

  it('refuses hashes that are not argon2 (bcrypt, plain text, garbage) instead of throwing', async () => {
    expect(await hasher.verify('$2y$10$abcdefghijklmnopqrstuv0123456789012345678901234567890', 'x')).toBe(
      false,
    );
    expect(await hasher.verify('plain-text-password', 'plain-text-password')).toBe(false);
    expect(await hasher.verify('$argon2id$not-a-hash', 'x')).toBe(false);
    expect(await hasher.verify('', '')).toBe(false);
  });

  it('verifyNothing always refuses', async () => {
    expect(await hasher.verifyNothing('timing-equaliser-password')).toBe(false);
    expect(await hasher.verifyNothing('anything')).toBe(false);
  });

  it('asks for a rehash when the stored cost is below today’s', async () => {
    const today = new PasswordHasher({ memoryKib: 2048, timeCost: 2, parallelism: 1 });
    expect(today.needsRehash(await hasher.hash('pw'))).toBe(true);
    expect(today.needsRehash(await today.hash('pw'))).toBe(false);
    expect(hasher.needsRehash(await today.hash('pw'))).toBe(false);
    expect(hasher.needsRehash('$argon2i$v=19$m=1024,t=1,p=1$c2FsdHNhbHQ$aGFzaA')).toBe(true);
    expect(hasher.needsRehash('$2y$10$abcdefghijklmnopqrstuv')).toBe(true);
    expect(new PasswordHasher({ ...CHEAP, parallelism: 2 }).needsRehash(await hasher.hash('pw'))).toBe(true);
  });
});

describe('isCommonPassword', () => {
  it.each(['password', 'Password', 'PASSWORD', '12345678', 'iloveyou', 'qwertyuiop'])(
    'refuses the common password %j',
    (password) => {
      expect(isCommonPassword(password, [])).toBe(true);
    },
  );

  it('answers as the package’s own check does, across the whole list (its last entries included)', () => {
    const entries = [
      ...['zzzzzzzz', 'zxcvbnm1', 'aaaaaaaa', 'starwars', '11111111', 'abc123abc'],
      ...['not-a-common-one', 'Sturdy-Passphrase-1937', '한국어비밀번호입니다', ''],
    ];
    for (const entry of entries) {
      // Lower-case entries only, so the package's exact match and ours (which also tries lower case) agree.
      expect(isCommonPassword(entry, []), entry).toBe(commonPasswordList.test(entry));
    }
    expect(entries.filter((entry) => commonPasswordList.test(entry)).length).toBeGreaterThan(3);
  });

  it('refuses a password equal to one of the account’s identifiers, ignoring case', () => {
    expect(isCommonPassword('Kim.Minjun', ['kim.minjun', undefined])).toBe(true);
    expect(isCommonPassword('kim.minjun@example.com', ['kim.minjun@EXAMPLE.com'])).toBe(true);
  });

  it('accepts an uncommon password that is no identifier', () => {
    expect(
      isCommonPassword('Sturdy-Passphrase-1937', ['kim.minjun', 'kim.minjun@example.com', undefined]),
    ).toBe(false);
    expect(isCommonPassword('kim.minjun1', ['kim.minjun'])).toBe(false);
  });
});
