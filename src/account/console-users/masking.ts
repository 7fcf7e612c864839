/**
 * How the console shows personal data by default: enough to recognise a user who writes
 * in, not enough to copy their data out. Pure functions; showing a field in full is the reveal action,
 * with a reason and an access record.
 */

const STAR = '*';

/** `mina@example.com` → `m***@example.com`: the first character of the local part, the whole domain. */
export function maskEmail(email: string): string {
  const at = email.lastIndexOf('@');
  if (at < 1) return STAR.repeat(3);
  const first = Array.from(email.slice(0, at))[0] ?? '';
  return `${first}${STAR.repeat(3)}${email.slice(at)}`;
}

/**
 * A person's name: `김민지` → `김*지`, `이순` → `이*`, `남궁민수` → `남**수`; a Latin name keeps the first and
 * last letter of each word (`Jane Doe` → `J**e D*e`). Characters are counted as code points, so a Korean
 * syllable is one.
 */
export function maskName(name: string): string {
  const trimmed = name.trim();
  if (trimmed === '') return '';
  if (/\s/.test(trimmed)) return trimmed.split(/\s+/).map(maskWord).join(' ');
  return maskWord(trimmed);
}

function maskWord(word: string): string {
  const chars = Array.from(word);
  if (chars.length === 1) return STAR;
  if (chars.length === 2) return `${chars[0]}${STAR}`;
  return `${chars[0]}${STAR.repeat(chars.length - 2)}${chars.at(-1)}`;
}

/**
 * An E.164 number: a Korean one in the national form with the middle group hidden (`+821012345678` →
 * `010-****-5678`, `+82212345678` → `02-****-5678`); any other keeps its first digit and its last four (`+14155550123` →
 * `+1******0123`).
 */
export function maskPhone(e164: string): string {
  const digits = e164.replace(/[^\d]/g, '');
  if (e164.startsWith('+82') && digits.length >= 10) {
    const national = `0${digits.slice(2)}`;
    // Seoul's area code is two digits (02); mobile and other areas three.
    const head = national.startsWith('02') ? national.slice(0, 2) : national.slice(0, 3);
    return `${head}-${STAR.repeat(4)}-${national.slice(-4)}`;
  }
  if (digits.length <= 4) return STAR.repeat(digits.length);
  const country = e164.startsWith('+') ? `+${digits.slice(0, 1)}` : '';
  const hidden = digits.length - 4 - (country === '' ? 0 : 1);
  return `${country}${STAR.repeat(hidden)}${digits.slice(-4)}`;
}

/** `2008-05-17` → `2008`: the year tells an adult from a child, the day is not needed for that. */
export function birthYear(birthDate: string | null): string | null {
  if (birthDate === null) return null;
  const year = /^(\d{4})-\d{2}-\d{2}$/.exec(birthDate)?.[1];
  return year ?? null;
}

/** An IPv4 address with its last byte hidden (`203.0.113.7` → `203.0.113.*`), an IPv6 one with its last 80 bits. */
export function maskAddress(address: string): string {
  if (address === '') return '';
  if (address.includes(':')) {
    const groups = address.split(':').slice(0, 3).join(':');
    return `${groups}:*`;
  }
  const parts = address.split('.');
  if (parts.length !== 4) return STAR;
  return `${parts.slice(0, 3).join('.')}.${STAR}`;
}
