import { SecondFactorCodes } from '../account/second-factor/codes.js';
import type { PasswordHasher } from '../lib/passwords.js';
import { SecretBox } from '../lib/secret-box.js';
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
}

export function buildStaff({ config, deps, hasher }: StaffParts): StaffServices {
  const db = deps.database.db;
  const repo = new StaffRepo(db);
  const sessions = new StaffSessionRepo(db);
  const now = deps.now ?? Date.now;
  const { secretsKey } = config.secondFactor;
  // The users' TOTP code on the console's clock: a code's time step is read at the same now as the session.
  const totp = new SecondFactorCodes(secretsKey ? SecretBox.withKey(secretsKey) : undefined, now);
  return {
    staff: new StaffService({ db, repo, sessions, publicUrl: config.mail.publicUrl, now }),
    staffSignIn: new StaffSignIn({
      db,
      repo,
      sessions,
      hasher,
      totp,
      issuer: config.secondFactor.issuer,
      lockoutMs: config.console.lockoutMs,
      idleTimeoutMs: config.console.idleTimeoutMs,
      allowedNetworks: config.console.allowedNetworks,
      now,
    }),
  };
}
