import { ValidationError } from '../../errors.js';
import type { UsedCode } from '../../modules/one-time-codes/repo.js';
import type { OneTimeCodes } from '../../modules/one-time-codes/service.js';
import type { RegisterInput } from './input.js';

/** The registration type of a sign-up proved by a code (or its link) mailed with purpose `register`. */
export const CODE_SIGN_UP_TYPE = 'email_code';

/** The mail's six digits, or its link's token (43 base64url characters): either proves the address. */
export const SIGN_UP_CODE_PATTERN = /^(?:[0-9]{6}|[A-Za-z0-9_-]{43})$/;

const invalidCode = () => new ValidationError({ code: [{ rule: 'exists' }] });

/**
 * Runs a sign-up of type `email_code` with its code used up first (one atomic statement: of two sign-ups
 * with one code exactly one goes on; a wrong code counts towards the five that end it). A sign-up refused
 * after that (a username taken, a consent field unknown) makes the code live again, so that the form can be
 * sent again corrected; a sign-up of another type runs as it is.
 */
export async function withSignUpCode<T>(
  codes: OneTimeCodes,
  input: RegisterInput,
  run: () => Promise<T>,
): Promise<T> {
  if (input.type !== CODE_SIGN_UP_TYPE) return run();
  const used = await useCode(codes, input.email, String(input.code));
  if (used === undefined) throw invalidCode();
  try {
    return await run();
  } catch (error) {
    await codes.release(used);
    throw error;
  }
}

/** The register code of `email` the proof names, used up; undefined for a wrong, dead or foreign one. */
async function useCode(codes: OneTimeCodes, email: string, proof: string): Promise<UsedCode | undefined> {
  if (proof.length === 6) {
    const guess = await codes.guess('email', email, 'register', proof);
    return guess.kind === 'right' ? guess.code : undefined;
  }
  const code = await codes.useToken('email', proof, 'register');
  if (code === undefined || code.address === email.toLowerCase()) return code;
  // The link's code was mailed to another address: it proves nothing here, and stays that address's.
  await codes.release(code);
  return undefined;
}
