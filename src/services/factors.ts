import { PasskeyAssertions } from '../account/passkeys/assertions.js';
import { WebAuthnCeremonies } from '../account/passkeys/ceremonies.js';
import { PasskeyManagement } from '../account/passkeys/management.js';
import { PasskeySignIn } from '../account/passkeys/sign-in.js';
import type { Reauthentication } from '../account/reauth/service.js';
import { SecondFactorCodes } from '../account/second-factor/codes.js';
import { SecondFactorSettings } from '../account/second-factor/settings.js';
import { SecondFactorSignIn } from '../account/second-factor/sign-in.js';
import type { SecurityActivity } from '../account/security-activity/recorder.js';
import { SignInTokens } from '../account/sign-in/tokens.js';
import type { SignInMethodsReader } from '../account/sign-in-methods.js';
import type { Config } from '../config.js';
import type { PasswordHasher } from '../lib/passwords.js';
import { SecretBox } from '../lib/secret-box.js';
import { WebAuthnChallengesRepo } from '../modules/passkeys/challenges-repo.js';
import { PasskeysRepo } from '../modules/passkeys/repo.js';
import { ChallengesRepo } from '../modules/second-factor/challenges-repo.js';
import { SecondFactorRepo } from '../modules/second-factor/repo.js';
import type { TokensService } from '../modules/tokens/service.js';
import type { UsersRepo } from '../modules/users/repo.js';
import type { UsersService } from '../modules/users/service.js';
import type { ServiceDeps } from './deps.js';

/** What the factors are made from: the entities built before them. */
export interface FactorParts {
  usersRepo: UsersRepo;
  users: UsersService;
  tokens: TokensService;
  hasher: PasswordHasher;
  /** Sign-ins through either factor, and every change to one, go to the security log. */
  activity: SecurityActivity;
}

/**
 * The proofs besides the password, as sign-in and re-authentication need them (built before those): the
 * second factor's sign-in step and the passkeys' assertions.
 */
export function buildFactorProofs(config: Config, deps: ServiceDeps, parts: FactorParts) {
  const db = deps.database.db;
  const { usersRepo, users, tokens, hasher, activity } = parts;
  // The second factor: secrets sealed with SECRETS_KEY (without it, its routes answer 503); a sign-in whose
  // first factor proved right is handed to it. Wrong codes count per account like failed logins.
  const { secretsKey } = config.secondFactor;
  const secondFactorCodes = new SecondFactorCodes(secretsKey ? SecretBox.withKey(secretsKey) : undefined);
  const secondFactorRepo = new SecondFactorRepo(db);
  // One writer of sign-ins' tokens, for every way to sign in.
  const signInTokens = new SignInTokens(db, usersRepo, tokens, hasher);
  const secondFactorSignIn = new SecondFactorSignIn({
    db,
    repo: secondFactorRepo,
    challenges: new ChallengesRepo(db),
    codes: secondFactorCodes,
    signInTokens,
    usersRepo,
    users,
    accountFailures: deps.limits.loginAccount,
    activity,
  });
  // Passkeys: the ceremonies of this relying party, and the assertions sign-in and re-authentication check.
  const passkeysRepo = new PasskeysRepo(db);
  const webauthnChallenges = new WebAuthnChallengesRepo(db);
  const ceremonies = new WebAuthnCeremonies(config.webauthn);
  const passkeyAssertions = new PasskeyAssertions(webauthnChallenges, passkeysRepo, ceremonies);
  return {
    secondFactorCodes,
    secondFactorRepo,
    signInTokens,
    secondFactorSignIn,
    passkeysRepo,
    webauthnChallenges,
    ceremonies,
    passkeyAssertions,
  };
}

export type FactorProofs = ReturnType<typeof buildFactorProofs>;

/** The owner's settings of both factors, and the passkey sign-in: they need re-authentication. */
export function buildFactorSettings(
  config: Config,
  deps: ServiceDeps,
  parts: FactorParts & { reauth: Reauthentication; signInMethods: SignInMethodsReader },
  proofs: FactorProofs,
) {
  const db = deps.database.db;
  const { limits } = deps;
  const { usersRepo, users, reauth, activity } = parts;
  const secondFactor = new SecondFactorSettings({
    db,
    repo: proofs.secondFactorRepo,
    codes: proofs.secondFactorCodes,
    reauth,
    guesses: limits.loginFailures,
    issuer: config.secondFactor.issuer,
    activity,
  });
  const passkeySignIn = new PasskeySignIn({
    assertions: proofs.passkeyAssertions,
    passkeys: proofs.passkeysRepo,
    usersRepo,
    users,
    signInTokens: proofs.signInTokens,
    limits: { loginFailures: limits.loginFailures, accountFailures: limits.loginAccount },
    activity,
  });
  const passkeys = new PasskeyManagement({
    db,
    passkeys: proofs.passkeysRepo,
    challenges: proofs.webauthnChallenges,
    ceremonies: proofs.ceremonies,
    assertions: proofs.passkeyAssertions,
    reauth,
    methods: parts.signInMethods,
    activity,
  });
  return { secondFactor, passkeySignIn, passkeys };
}
