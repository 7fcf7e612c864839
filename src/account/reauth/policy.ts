import { ValidationError } from '../../errors.js';

/** A change that needs re-authentication, named by what it does to the account. */
export type SensitiveChange =
  /** Setting or changing the password. */
  | 'password'
  /** Changing the email: the address a password reset goes to. */
  | 'email'
  /** Adding or removing a passkey. */
  | 'passkey'
  /** Linking or unlinking a provider. */
  | 'provider_link'
  /** Adding, changing or removing the mobile number, which signs in by SMS code once verified. */
  | 'phone'
  /** Setting up, disabling the authenticator, or new recovery codes. */
  | 'second_factor'
  | 'deletion'
  | 'export';

/**
 * The changes that add or remove a way to sign in (or the address that recovers one). On an account with a
 * second factor on, they need two factors of re-authentication: the password (or a linked provider's token)
 * with an authenticator or recovery code, or a passkey. Otherwise a stolen session and a phished password
 * could enroll a passkey, which signs in alone, past the second factor.
 *
 * `second_factor` is one too, but its endpoints ask for a current code (or recovery code) of their own
 * beside the re-authentication (disabling, new recovery codes), or run only while no second factor is on
 * (setting up): the second factor is proven there, so one factor of re-authentication completes two.
 */
const CHANGES_A_WAY_IN: Record<SensitiveChange, boolean> = {
  password: false,
  email: true,
  passkey: true,
  provider_link: true,
  phone: true,
  second_factor: false,
  deletion: false,
  export: false,
};

/** The factors of re-authentication `change` needs on an account whose second factor is on or off. */
export function factorsNeeded(change: SensitiveChange, secondFactorOn: boolean): 1 | 2 {
  return secondFactorOn && CHANGES_A_WAY_IN[change] ? 2 : 1;
}

/** Whether the answer depends on the account's second factor at all (so it is read only then). */
export const dependsOnSecondFactor = (change: SensitiveChange): boolean => CHANGES_A_WAY_IN[change];

/**
 * The refusal of a one-factor proof (or window) where two are needed: the 422 of a missing proof, on `code`,
 * the field user/reauth takes the authenticator (or `recovery_code`) in beside the password.
 */
export const secondFactorNeeded = (): ValidationError =>
  new ValidationError({ code: [{ rule: 'reauth_second_factor' }] });
