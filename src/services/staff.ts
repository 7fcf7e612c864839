import { CeremonyFailedError, WebAuthnCeremonies } from '../account/passkeys/ceremonies.js';
import { SecondFactorCodes } from '../account/second-factor/codes.js';
import type { WebAuthnConfig } from '../config/webauthn.js';
import { PasskeysUnavailableError } from '../errors.js';
import type { PasswordHasher } from '../lib/passwords.js';
import { SecretBox } from '../lib/secret-box.js';
import { StaffEnrollment } from '../modules/staff/enrollment.js';
import { StaffPasskeyRepo } from '../modules/staff/passkey-repo.js';
import { type StaffCeremonies, StaffPasskeys } from '../modules/staff/passkeys.js';
import { StaffRepo } from '../modules/staff/repo.js';
import { StaffService } from '../modules/staff/service.js';
import { StaffSessionRepo } from '../modules/staff/session-repo.js';
import { StaffSignIn } from '../modules/staff/sign-in.js';
import type { FactoryArgs } from './deps.js';

/** What the staff console is made from: the users' hasher (its argon2 pool). */
export interface StaffParts extends FactoryArgs {
  hasher: PasswordHasher;
}

/** The staff accounts and their sign-in (docs/console.md): the admin API and `accounts staff` share them. */
export interface StaffServices {
  staff: StaffService;
  staffSignIn: StaffSignIn;
  staffEnrollment: StaffEnrollment;
}

/** A failed verification as undefined: the staff module knows no error type of the ceremonies'. */
async function provenOrUndefined<T>(verification: Promise<T>): Promise<T | undefined> {
  try {
    return await verification;
  } catch (error) {
    if (error instanceof CeremonyFailedError) return undefined;
    throw error;
  }
}

/** The users' ceremonies of the relying party (same origin, same RP ID), as the staff passkeys use them. */
function staffCeremonies(config: WebAuthnConfig): StaffCeremonies {
  const ceremonies = new WebAuthnCeremonies(config);
  return {
    registrationOptions: (input) => ceremonies.registrationOptions(input),
    authenticationOptions: (allow) => ceremonies.authenticationOptions(allow),
    verifyRegistration: (response, challenge) =>
      provenOrUndefined(ceremonies.verifyRegistration(response, challenge)),
    verifyAssertion: (response, challenge, credential) =>
      provenOrUndefined(ceremonies.verifyAssertion(response, challenge, credential)),
    unavailable: config.passkeysAvailable ? undefined : () => new PasskeysUnavailableError(config.rpId),
  };
}

export function buildStaff({ config, deps, hasher }: StaffParts): StaffServices {
  const db = deps.database.db;
  const repo = new StaffRepo(db);
  const sessions = new StaffSessionRepo(db);
  const now = deps.now ?? Date.now;
  const { secretsKey } = config.secondFactor;
  // The users' TOTP code on the console's clock: a code's time step is read at the same now as the session.
  const totp = new SecondFactorCodes(secretsKey ? SecretBox.withKey(secretsKey) : undefined, now);
  const passkeys = new StaffPasskeys({
    repo: new StaffPasskeyRepo(db),
    ceremonies: staffCeremonies(config.webauthn),
    now,
  });
  return {
    staff: new StaffService({ db, repo, sessions, publicUrl: config.mail.publicUrl, now }),
    staffSignIn: new StaffSignIn({
      db,
      repo,
      sessions,
      hasher,
      totp,
      passkeys,
      lockoutMs: config.console.lockoutMs,
      idleTimeoutMs: config.console.idleTimeoutMs,
      allowedNetworks: config.console.allowedNetworks,
      now,
    }),
    staffEnrollment: new StaffEnrollment({
      db,
      repo,
      hasher,
      totp,
      passkeys,
      issuer: config.secondFactor.issuer,
      now,
    }),
  };
}
