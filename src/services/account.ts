import type { AccountEraser } from '../account/deletion/eraser.js';
import type { ScheduledDeletions } from '../account/deletion/scheduled.js';
import { AccountDeletion } from '../account/deletion/service.js';
import type { PasskeyAssertions } from '../account/passkeys/assertions.js';
import { PasswordResetService } from '../account/password-reset/service.js';
import { ProfilePictureService } from '../account/profile/picture.js';
import { ProfileService } from '../account/profile/service.js';
import { ProviderLinks } from '../account/provider-links/service.js';
import { Reauthentication } from '../account/reauth/service.js';
import type { SecondFactorCodes } from '../account/second-factor/codes.js';
import { SecondFactorReauthCheck } from '../account/second-factor/reauth-check.js';
import type { SecurityActivity } from '../account/security-activity/recorder.js';
import type { SessionGate } from '../account/sign-in/session-gate.js';
import type { SignInTokens } from '../account/sign-in/tokens.js';
import { SignInMethodsReader } from '../account/sign-in-methods.js';
import { SignUp } from '../account/sign-up/service.js';
import type { PasswordHasher } from '../lib/passwords.js';
import { writeAccountEvent } from '../modules/account-events/outbox.js';
import type { ConsentsService } from '../modules/consents/service.js';
import type { IdempotencyService } from '../modules/idempotency/service.js';
import type { ImagesService } from '../modules/images/service.js';
import type { OneTimeTokensRepo } from '../modules/lifecycle/repo.js';
import { EmailVerificationService } from '../modules/lifecycle/verification-service.js';
import type { OneTimeCodes } from '../modules/one-time-codes/service.js';
import type { PasskeysRepo } from '../modules/passkeys/repo.js';
import type { ProviderAccountsRepo } from '../modules/providers/repo.js';
import type { ProvidersService } from '../modules/providers/service.js';
import type { SecondFactorRepo } from '../modules/second-factor/repo.js';
import { ReauthWindowsRepo } from '../modules/tokens/reauth-window-repo.js';
import type { TokensService } from '../modules/tokens/service.js';
import type { UsersRepo } from '../modules/users/repo.js';
import type { UsersService } from '../modules/users/service.js';
import type { ProviderVerifier } from '../providers/verifier.js';
import type { FactoryArgs } from './deps.js';

/** What the account's flows are made from: the entities, sign-in, the passkeys' proofs and the deletion. */
export interface AccountParts extends FactoryArgs {
  usersRepo: UsersRepo;
  users: UsersService;
  tokens: TokensService;
  hasher: PasswordHasher;
  images: ImagesService;
  providers: ProvidersService;
  verifiers: Map<string, ProviderVerifier>;
  providerAccounts: ProviderAccountsRepo;
  consents: ConsentsService;
  idempotency: IdempotencyService;
  oneTimeTokens: OneTimeTokensRepo;
  /** The one-time codes a sign-up by code is proved by (services/email-codes.ts). */
  oneTimeCodes: OneTimeCodes;
  gate: SessionGate;
  sessionTokens: SignInTokens;
  secondFactorCodes: SecondFactorCodes;
  secondFactorRepo: SecondFactorRepo;
  passkeysRepo: PasskeysRepo;
  passkeyAssertions: PasskeyAssertions;
  eraser: AccountEraser;
  scheduledDeletions: ScheduledDeletions;
  /** Every flow logs what it did (and mails its alert) in its transaction. */
  activity: SecurityActivity;
}

/** The account layer's use cases that span entities. */
export interface AccountFlows {
  verification: EmailVerificationService;
  signUp: SignUp;
  /** Re-authentication: what every sensitive change asks for first. */
  reauth: Reauthentication;
  signInMethods: SignInMethodsReader;
  providerLinks: ProviderLinks;
  profile: ProfileService;
  profilePictures: ProfilePictureService;
  passwordReset: PasswordResetService;
  /** user/delete: the scheduled deletion (or the eraser, without a grace period) behind re-authentication. */
  deletion: AccountDeletion;
}

/** The account layer's use cases that span entities: sign-up, re-authentication and what it guards. */
export function buildAccountFlows(parts: AccountParts): AccountFlows {
  const { config, deps } = parts;
  const db = deps.database.db;
  const { limits, mailer } = deps;
  const { usersRepo, users, tokens, hasher, images, providers, providerAccounts, activity } = parts;
  const { oneTimeTokens, gate } = parts;
  const verification = new EmailVerificationService({
    db,
    oneTimeTokens,
    users,
    mailer,
    settings: { ttlMs: config.mail.emailVerifyTtlMs, urlTemplate: config.mail.emailVerifyUrl },
    resendLimit: limits.emailResend,
    log: {
      emailVerified: async (trx, user, client) => {
        await writeAccountEvent(trx, 'user.email_verified', user.id, { id: user.id, email: user.email });
        await activity.record(
          { user: { ...user, email_verified: true }, type: 'email_verified', client },
          trx,
        );
      },
    },
  });
  const signUp = new SignUp({
    db,
    usersRepo,
    users,
    tokens,
    hasher,
    images,
    providers,
    verification,
    activity,
    consents: parts.consents,
    idempotency: parts.idempotency,
    outcomes: deps.database.outcomes,
    codes: parts.oneTimeCodes,
  });
  // Wrong re-authentication proofs (a password, a provider token, a passkey, a code) count per session on
  // the login-failure limit, and per account on the higher per-account login limit.
  const reauth = new Reauthentication({
    hasher,
    verifiers: parts.verifiers,
    links: providerAccounts,
    tokenGuesses: limits.loginFailures,
    accountGuesses: limits.loginAccount,
    passkeys: parts.passkeyAssertions,
    secondFactor: new SecondFactorReauthCheck(db, parts.secondFactorRepo, parts.secondFactorCodes),
    // The window user/reauth opens lives on the token's row (every instance sees it).
    windows: new ReauthWindowsRepo(db),
    windowMs: config.reauthWindowMs,
  });
  const signInMethods = new SignInMethodsReader(usersRepo, providerAccounts, parts.passkeysRepo);
  const providerLinks = new ProviderLinks({
    db,
    links: providerAccounts,
    providers,
    users,
    reauth,
    activity,
    methods: signInMethods,
  });
  const profile = new ProfileService({
    db,
    usersRepo,
    users,
    tokens,
    hasher,
    reauth,
    verification,
    activity,
  });
  const profilePictures = new ProfilePictureService(db, usersRepo, users, images);
  const passwordReset = new PasswordResetService({
    db,
    oneTimeTokens,
    usersRepo,
    users,
    tokens,
    hasher,
    mailer,
    settings: { ttlMs: config.mail.passwordResetTtlMs, urlTemplate: config.mail.passwordResetUrl },
    perEmail: limits.passwordForgotEmail,
    activity,
    gate,
    sessionTokens: parts.sessionTokens,
  });
  const deletion = new AccountDeletion(parts.eraser, parts.scheduledDeletions, reauth);
  return {
    verification,
    signUp,
    reauth,
    signInMethods,
    providerLinks,
    profile,
    profilePictures,
    passwordReset,
    deletion,
  };
}
