import { PasskeyAssertions } from '../account/passkeys/assertions.js';
import { WebAuthnCeremonies } from '../account/passkeys/ceremonies.js';
import { PasskeyManagement } from '../account/passkeys/management.js';
import { PasskeySignIn } from '../account/passkeys/sign-in.js';
import type { Reauthentication } from '../account/reauth/service.js';
import type { SecondFactorCodes } from '../account/second-factor/codes.js';
import { SecondFactorSettings } from '../account/second-factor/settings.js';
import type { SecurityActivity } from '../account/security-activity/recorder.js';
import type { LoginLimits } from '../account/sign-in/login-attempts.js';
import type { SignInTokens } from '../account/sign-in/tokens.js';
import type { SignInMethodsReader } from '../account/sign-in-methods.js';
import { WebAuthnChallengesRepo } from '../modules/passkeys/challenges-repo.js';
import { PasskeysRepo } from '../modules/passkeys/repo.js';
import type { SecondFactorRepo } from '../modules/second-factor/repo.js';
import type { UsersRepo } from '../modules/users/repo.js';
import type { UsersService } from '../modules/users/service.js';
import type { FactoryArgs } from './deps.js';

/** The passkeys' proofs: what sign-in, re-authentication and the passkeys' settings check assertions with. */
export interface PasskeyProofs {
  passkeysRepo: PasskeysRepo;
  webauthnChallenges: WebAuthnChallengesRepo;
  ceremonies: WebAuthnCeremonies;
  passkeyAssertions: PasskeyAssertions;
}

/**
 * The passkeys' ceremonies of this relying party, and the assertions sign-in and re-authentication check
 * (built before re-authentication).
 */
export function buildPasskeyProofs({ config, deps }: FactoryArgs): PasskeyProofs {
  const db = deps.database.db;
  const passkeysRepo = new PasskeysRepo(db);
  const webauthnChallenges = new WebAuthnChallengesRepo(db);
  const ceremonies = new WebAuthnCeremonies(config.webauthn);
  const passkeyAssertions = new PasskeyAssertions(webauthnChallenges, passkeysRepo, ceremonies);
  return { passkeysRepo, webauthnChallenges, ceremonies, passkeyAssertions };
}

/** What the factors' settings are made from: the entities, sign-in and the proofs built before them. */
export interface FactorSettingsParts extends FactoryArgs, PasskeyProofs {
  usersRepo: UsersRepo;
  users: UsersService;
  sessionTokens: SignInTokens;
  loginLimits: LoginLimits;
  secondFactorRepo: SecondFactorRepo;
  secondFactorCodes: SecondFactorCodes;
  reauth: Reauthentication;
  signInMethods: SignInMethodsReader;
  /** Sign-ins through either factor, and every change to one, go to the security log. */
  activity: SecurityActivity;
}

/** The owner's settings of both factors, and the passkey sign-in. */
export interface FactorSettingsServices {
  secondFactor: SecondFactorSettings;
  passkeySignIn: PasskeySignIn;
  passkeys: PasskeyManagement;
}

/** The owner's settings of both factors, and the passkey sign-in: they need re-authentication. */
export function buildFactorSettings(parts: FactorSettingsParts): FactorSettingsServices {
  const { config, deps } = parts;
  const db = deps.database.db;
  const { limits } = deps;
  const { reauth, activity } = parts;
  const secondFactor = new SecondFactorSettings({
    db,
    repo: parts.secondFactorRepo,
    codes: parts.secondFactorCodes,
    reauth,
    guesses: limits.loginFailures,
    issuer: config.secondFactor.issuer,
    activity,
  });
  const passkeySignIn = new PasskeySignIn({
    assertions: parts.passkeyAssertions,
    passkeys: parts.passkeysRepo,
    usersRepo: parts.usersRepo,
    users: parts.users,
    sessionTokens: parts.sessionTokens,
    limits: parts.loginLimits,
    activity,
  });
  const passkeys = new PasskeyManagement({
    db,
    passkeys: parts.passkeysRepo,
    challenges: parts.webauthnChallenges,
    ceremonies: parts.ceremonies,
    assertions: parts.passkeyAssertions,
    reauth,
    methods: parts.signInMethods,
    activity,
  });
  return { secondFactor, passkeySignIn, passkeys };
}
