import { randomInt } from 'node:crypto';

const SLUG_ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';

function randomSuffix(length: number): string {
  let suffix = '';
  for (let i = 0; i < length; i++) suffix += SLUG_ALPHABET[randomInt(SLUG_ALPHABET.length)];
  return suffix;
}

/** The email's local part, made into a valid slug stem (or undefined when too little of it survives). */
export function slugStem(email: string): string | undefined {
  const stem = (email.split('@')[0] ?? '')
    .replace(/[^A-Za-z0-9_-]+/g, '-')
    .replace(/[-_]{2,}/g, '-')
    .replace(/^[^A-Za-z0-9]+|[^A-Za-z0-9]+$/g, '')
    .slice(0, 40)
    .replace(/[^A-Za-z0-9]+$/, '')
    .toLowerCase();
  return stem.length >= 4 ? stem : undefined;
}

/**
 * The slugs to try for an email, in order: its local part, then with random suffixes, and last `user-`
 * with twelve random characters (when too little of the local part survives, `user-` ones only).
 */
export function slugCandidates(email: string): string[] {
  const stem = slugStem(email);
  const last = `user-${randomSuffix(12)}`;
  return stem
    ? [stem, `${stem}-${randomSuffix(4)}`, `${stem}-${randomSuffix(6)}`, last]
    : [`user-${randomSuffix(8)}`, `user-${randomSuffix(10)}`, last];
}
