import { EmailCodeSignIn } from '../account/email-code/service.js';
import type { SecurityActivity } from '../account/security-activity/recorder.js';
import type { LoginLimits } from '../account/sign-in/login-attempts.js';
import type { SessionGate } from '../account/sign-in/session-gate.js';
import type { SignInTokens } from '../account/sign-in/tokens.js';
import { OneTimeCodesRepo } from '../modules/one-time-codes/repo.js';
import { OneTimeCodes } from '../modules/one-time-codes/service.js';
import { ReauthWindowsRepo } from '../modules/tokens/reauth-window-repo.js';
import type { UsersRepo } from '../modules/users/repo.js';
import type { UsersService } from '../modules/users/service.js';
import type { FactoryArgs } from './deps.js';

/** What sign-in by an emailed code is made from: sign-in's gate and token writer, and the entities. */
export interface EmailCodeParts extends FactoryArgs {
  usersRepo: UsersRepo;
  users: UsersService;
  gate: SessionGate;
  sessionTokens: SignInTokens;
  loginLimits: LoginLimits;
  activity: SecurityActivity;
}

/** The one-time codes of every channel, and sign-in by a code or link mailed to the account's address. */
export interface EmailCodeServices {
  /** Issues and checks one-time codes (sign-up by code uses them too). */
  oneTimeCodes: OneTimeCodes;
  emailCodes: EmailCodeSignIn;
}

export function buildEmailCodes(parts: EmailCodeParts): EmailCodeServices {
  const { config, deps } = parts;
  const db = deps.database.db;
  const oneTimeCodes = new OneTimeCodes(new OneTimeCodesRepo(db));
  const base = config.mail.publicUrl;
  const emailCodes = new EmailCodeSignIn({
    db,
    codes: oneTimeCodes,
    usersRepo: parts.usersRepo,
    users: parts.users,
    mailer: deps.mailer,
    // The pages that use the links' tokens (src/web/): the login's button, the sign-up's form.
    links: { login: `${base}/login?token={token}`, register: `${base}/signup?code={token}` },
    perEmail: deps.limits.emailCodeEmail,
    limits: parts.loginLimits,
    gate: parts.gate,
    sessionTokens: parts.sessionTokens,
    activity: parts.activity,
    window: { windows: new ReauthWindowsRepo(db), durationMs: config.reauthWindowMs },
  });
  return { oneTimeCodes, emailCodes };
}
