import { SecondFactorCodes } from '../account/second-factor/codes.js';
import { type DeletionCancelCompletion, SecondFactorSignIn } from '../account/second-factor/sign-in.js';
import type { SecurityActivity } from '../account/security-activity/recorder.js';
import type { LoginLimits } from '../account/sign-in/login-attempts.js';
import { SignIn } from '../account/sign-in/service.js';
import { SessionGate } from '../account/sign-in/session-gate.js';
import { SignInTokens } from '../account/sign-in/tokens.js';
import type { PasswordHasher } from '../lib/passwords.js';
import { SecretBox } from '../lib/secret-box.js';
import type { ProvidersService } from '../modules/providers/service.js';
import { ChallengesRepo } from '../modules/second-factor/challenges-repo.js';
import { SecondFactorRepo } from '../modules/second-factor/repo.js';
import type { TokensService } from '../modules/tokens/service.js';
import type { UsersRepo } from '../modules/users/repo.js';
import type { UsersService } from '../modules/users/service.js';
import type { FactoryArgs } from './deps.js';

/** What sign-in is made from: the entities built before it (services/entities.ts), and the security log. */
export interface SignInParts extends FactoryArgs {
  usersRepo: UsersRepo;
  users: UsersService;
  tokens: TokensService;
  hasher: PasswordHasher;
  providers: ProvidersService;
  /** Every sign-in, and every wrong password or code for an existing account, goes to the security log. */
  activity: SecurityActivity;
}

/** The gate, the writer of sessions' tokens, and sign-in by password or provider. */
export interface SignInServices {
  /** Whether an account may have a session now, and how (a second factor first). */
  gate: SessionGate;
  /** Writes a session's token once the gate admitted it, the gate's rule applied again under a lock. */
  sessionTokens: SignInTokens;
  /** Failed logins per (email or provider identity, IP), and per account. */
  loginLimits: LoginLimits;
  challenges: ChallengesRepo;
  secondFactorCodes: SecondFactorCodes;
  secondFactorRepo: SecondFactorRepo;
  signIn: SignIn;
}

/**
 * The session gate and sign-in by password or provider. Built before everything that checks a password the
 * login's way (the deletion's cancel) or issues a session (password reset, passkeys, the second factor's
 * completion, built after the deletion by buildSecondFactorSignIn).
 */
export function buildSignIn(parts: SignInParts): SignInServices {
  const { config, deps } = parts;
  const db = deps.database.db;
  const { limits } = deps;
  const { usersRepo, users, tokens, hasher, activity } = parts;
  // The second factor: secrets sealed with SECRETS_KEY (without it, its routes answer 503).
  const { secretsKey } = config.secondFactor;
  const secondFactorCodes = new SecondFactorCodes(secretsKey ? SecretBox.withKey(secretsKey) : undefined);
  const secondFactorRepo = new SecondFactorRepo(db);
  const challenges = new ChallengesRepo(db);
  // One gate for every way to a session, and one writer of their tokens behind it.
  const sessionTokens = new SignInTokens({
    db,
    users: usersRepo,
    tokens,
    hasher,
    secondFactor: secondFactorRepo,
  });
  const gate = new SessionGate({ db, secondFactorRepo, challenges });
  // Failed logins per (email or provider identity, IP), and per account (RATE_LIMIT_LOGIN_ACCOUNT).
  const loginLimits = { loginFailures: limits.loginFailures, accountFailures: limits.loginAccount };
  const signIn = new SignIn({
    usersRepo,
    users,
    tokens,
    providers: parts.providers,
    hasher,
    limits: loginLimits,
    gate,
    sessionTokens,
    activity,
  });
  return { gate, sessionTokens, loginLimits, challenges, secondFactorCodes, secondFactorRepo, signIn };
}

/** What the second step of a sign-in is made from: sign-in's parts, and what a deletion's cancel completes. */
export interface SecondFactorSignInParts extends FactoryArgs {
  usersRepo: UsersRepo;
  users: UsersService;
  secondFactorRepo: SecondFactorRepo;
  challenges: ChallengesRepo;
  secondFactorCodes: SecondFactorCodes;
  sessionTokens: SignInTokens;
  activity: SecurityActivity;
  /** What a right code of a deletion's cancel completes (the scheduled deletion). */
  deletionCancel: DeletionCancelCompletion;
}

/**
 * The second step of a sign-in, or of a deletion's cancel (`deletionCancel`: what its right code completes).
 * Wrong codes count per account like failed logins, and on the account's run of wrong codes.
 */
export function buildSecondFactorSignIn(parts: SecondFactorSignInParts): SecondFactorSignIn {
  const { deps } = parts;
  return new SecondFactorSignIn({
    db: deps.database.db,
    repo: parts.secondFactorRepo,
    challenges: parts.challenges,
    codes: parts.secondFactorCodes,
    sessionTokens: parts.sessionTokens,
    usersRepo: parts.usersRepo,
    users: parts.users,
    limits: { loginFailures: deps.limits.loginFailures, accountFailures: deps.limits.loginAccount },
    activity: parts.activity,
    deletionCancel: parts.deletionCancel,
  });
}
