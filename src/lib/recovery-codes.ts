import { createHash, randomInt } from 'node:crypto';

/** RFC 4648's base32 alphabet, lower-cased: no 0/1/8/9, so O/0 and I/1 cannot be mixed up. */
const ALPHABET = 'abcdefghijklmnopqrstuvwxyz234567';
/** 10 characters of 5 bits: 50 bits per code. */
const CODE_CHARACTERS = 10;
export const RECOVERY_CODE_COUNT = 10;

/** One code as shown: `xxxxx-xxxxx`. */
function newRecoveryCode(): string {
  let code = '';
  for (let i = 0; i < CODE_CHARACTERS; i++) code += ALPHABET[randomInt(ALPHABET.length)];
  return `${code.slice(0, 5)}-${code.slice(5)}`;
}

/** A fresh set of codes, shown to the user once. */
export function newRecoveryCodes(): string[] {
  return Array.from({ length: RECOVERY_CODE_COUNT }, newRecoveryCode);
}

/**
 * What a typed code counts as: case, spaces and hyphens are ignored (people copy codes in many ways);
 * undefined when it cannot be a code at all (so a malformed one costs no query).
 */
export function normalizedRecoveryCode(typed: string): string | undefined {
  const code = typed.toLowerCase().replace(/[\s-]/g, '');
  return code.length === CODE_CHARACTERS && [...code].every((c) => ALPHABET.includes(c)) ? code : undefined;
}

/**
 * Only this digest is stored. A fast hash is enough because the codes are random, not chosen by people: no
 * dictionary applies, an online guess is capped by the challenge's and the account's limits, and reversing
 * one offline costs ~2^49 SHA-256s on average — for a code that is worthless without the password too. A
 * slow hash would buy little and cost a slow hash per code checked.
 */
export function hashRecoveryCode(normalized: string): Buffer {
  return createHash('sha256').update(`recovery-code\n${normalized}`, 'utf8').digest();
}
