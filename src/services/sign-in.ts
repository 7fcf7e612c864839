import { SecondFactorCodes } from '../account/second-factor/codes.js';
import { type DeletionCancelCompletion, SecondFactorSignIn } from '../account/second-factor/sign-in.js';
import type { SecurityActivity } from '../account/security-activity/recorder.js';
import { SignIn } from '../account/sign-in/service.js';
import { SessionGate } from '../account/sign-in/session-gate.js';
import { SignInTokens } from '../account/sign-in/tokens.js';
import type { Config } from '../config.js';
import { SecretBox } from '../lib/secret-box.js';
import { ChallengesRepo } from '../modules/second-factor/challenges-repo.js';
import { SecondFactorRepo } from '../modules/second-factor/repo.js';
import type { ServiceDeps } from './deps.js';
import type { Entities } from './entities.js';

/** What sign-in is made from: the entities built before it, and the security log. */
export type SignInParts = Pick<Entities, 'usersRepo' | 'users' | 'tokens' | 'hasher' | 'providers'> & {
  /** Every sign-in, and every wrong password or code for an existing account, goes to the security log. */
  activity: SecurityActivity;
};

/**
 * The session gate and sign-in by password or provider. Built before everything that checks a password the
 * login's way (the deletion's cancel) or issues a session (password reset, passkeys, the second factor's
 * completion, built after the deletion by buildSecondFactorSignIn).
 */
export function buildSignIn(config: Config, deps: ServiceDeps, parts: SignInParts) {
  const db = deps.database.db;
  const { limits } = deps;
  const { usersRepo, users, tokens, hasher, activity } = parts;
  // The second factor: secrets sealed with SECRETS_KEY (without it, its routes answer 503).
  const { secretsKey } = config.secondFactor;
  const secondFactorCodes = new SecondFactorCodes(secretsKey ? SecretBox.withKey(secretsKey) : undefined);
  const secondFactorRepo = new SecondFactorRepo(db);
  const challenges = new ChallengesRepo(db);
  // One gate, and one writer of sessions' tokens behind it, for every way to a session.
  const signInTokens = new SignInTokens({
    db,
    users: usersRepo,
    tokens,
    hasher,
    secondFactor: secondFactorRepo,
  });
  const gate = new SessionGate({ db, secondFactorRepo, challenges, tokens: signInTokens });
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
    activity,
  });
  return { gate, loginLimits, challenges, secondFactorCodes, secondFactorRepo, signIn };
}

export type SignInFlows = ReturnType<typeof buildSignIn>;

/**
 * The second step of a sign-in, or of a deletion's cancel (`deletionCancel`: what its right code completes).
 * Wrong codes count per account like failed logins, and on the account's run of wrong codes.
 */
export function buildSecondFactorSignIn(
  deps: ServiceDeps,
  parts: SignInParts & SignInFlows & { deletionCancel: DeletionCancelCompletion },
): SecondFactorSignIn {
  return new SecondFactorSignIn({
    db: deps.database.db,
    repo: parts.secondFactorRepo,
    challenges: parts.challenges,
    codes: parts.secondFactorCodes,
    gate: parts.gate,
    usersRepo: parts.usersRepo,
    users: parts.users,
    limits: { loginFailures: deps.limits.loginFailures, accountFailures: deps.limits.loginAccount },
    activity: parts.activity,
    deletionCancel: parts.deletionCancel,
  });
}
