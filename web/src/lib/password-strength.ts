/**
 * How strong a new password looks, as the hint under the field says it (a key of the page's messages).
 * `common` comes only from the API: the password is on its common-password list.
 */
export type Strength = 'too_short' | 'personal' | 'common' | 'weak' | 'fair' | 'good' | 'strong';

/** The shortest password the API accepts (newPasswordField). */
const MIN_LENGTH = 8;

/** Runs and keyboard walks a guesser tries first. */
const SEQUENCES = ['0123456789', 'abcdefghijklmnopqrstuvwxyz', 'qwertyuiop', 'asdfghjkl', 'zxcvbnm'];

/** The longest stretch of `password` that is a run of one of SEQUENCES, forwards or backwards. */
function longestSequence(password: string): number {
  const lowered = password.toLowerCase();
  let longest = 0;
  for (const sequence of SEQUENCES) {
    for (const line of [sequence, [...sequence].reverse().join('')]) {
      let run = 0;
      for (let index = 1; index < lowered.length; index += 1) {
        const at = line.indexOf(lowered[index - 1] ?? '');
        run = at >= 0 && line[at + 1] === lowered[index] ? run + 1 : 0;
        longest = Math.max(longest, run + 1);
      }
    }
  }
  return longest;
}

/**
 * The hint's instant judgement, while typing: the length the API asks for, the account's own names (which the
 * API refuses, as it refuses common passwords), then a rough count of what a guesser must try — character
 * classes, repeats and keyboard runs lower it. After a pause the field asks the API's own judgement
 * (`validate/password`, which knows the common-password list), and a refusal there overrides this
 * (password-field.ts). Only a hint: the API's rules decide at submit.
 */
export function passwordStrength(password: string, identifiers: readonly string[] = []): Strength {
  if (password.length < MIN_LENGTH) return 'too_short';
  const lowered = password.toLowerCase();
  if (identifiers.some((identifier) => identifier !== '' && identifier.toLowerCase() === lowered))
    return 'personal';
  const classes = [/[a-z]/, /[A-Z]/, /[0-9]/, /[^a-zA-Z0-9]/].filter((pattern) => pattern.test(password));
  const distinct = new Set(password).size;
  const effective = Math.min(password.length, distinct * 2) - Math.max(0, longestSequence(password) - 2);
  const score = effective + classes.length * 2 + (/[^\p{ASCII}]/u.test(password) ? 4 : 0);
  if (distinct <= 3 || score < 12) return 'weak';
  if (score < 16) return 'fair';
  if (score < 22) return 'good';
  return 'strong';
}
