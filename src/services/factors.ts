import { PasskeyAssertions } from '../account/passkeys/assertions.js';
import { WebAuthnCeremonies } from '../account/passkeys/ceremonies.js';
import { PasskeyManagement } from '../account/passkeys/management.js';
import { PasskeySignIn } from '../account/passkeys/sign-in.js';
import type { Reauthentication } from '../account/reauth/service.js';
import { SecondFactorSettings } from '../account/second-factor/settings.js';
import type { SecurityActivity } from '../account/security-activity/recorder.js';
import type { SignInMethodsReader } from '../account/sign-in-methods.js';
import type { Config } from '../config.js';
import { WebAuthnChallengesRepo } from '../modules/passkeys/challenges-repo.js';
import { PasskeysRepo } from '../modules/passkeys/repo.js';
import type { ServiceDeps } from './deps.js';
import type { Entities } from './entities.js';
import type { SignInFlows } from './sign-in.js';

/**
 * The passkeys' ceremonies of this relying party, and the assertions sign-in and re-authentication check
 * (built before re-authentication). The server's alone: WebAuthn is a second's import no command needs.
 */
export function buildPasskeyProofs(config: Config, deps: ServiceDeps) {
  const db = deps.database.db;
  const passkeysRepo = new PasskeysRepo(db);
  const webauthnChallenges = new WebAuthnChallengesRepo(db);
  const ceremonies = new WebAuthnCeremonies(config.webauthn);
  const passkeyAssertions = new PasskeyAssertions(webauthnChallenges, passkeysRepo, ceremonies);
  return { passkeysRepo, webauthnChallenges, ceremonies, passkeyAssertions };
}

export type PasskeyProofs = ReturnType<typeof buildPasskeyProofs>;

/** What the factors' settings are made from: the entities, sign-in and the proofs built before them. */
export type FactorSettingsParts = Pick<Entities, 'usersRepo' | 'users'> &
  Pick<SignInFlows, 'gate' | 'loginLimits' | 'secondFactorRepo' | 'secondFactorCodes'> &
  PasskeyProofs & {
    reauth: Reauthentication;
    signInMethods: SignInMethodsReader;
    /** Sign-ins through either factor, and every change to one, go to the security log. */
    activity: SecurityActivity;
  };

/** The owner's settings of both factors, and the passkey sign-in: they need re-authentication. */
export function buildFactorSettings(config: Config, deps: ServiceDeps, parts: FactorSettingsParts) {
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
    gate: parts.gate,
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
