import { SecondFactorCodes } from '../account/second-factor/codes.js';
import { SecondFactorSignIn } from '../account/second-factor/sign-in.js';
import type { SecurityActivity } from '../account/security-activity/recorder.js';
import { SignIn } from '../account/sign-in/service.js';
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
 * Sign-in by password or provider, with its second step for an account with a second factor on. Built before
 * everything that checks a password the login's way (the deletion's cancel) or needs the second factor's
 * state (password reset, the operator's reset).
 */
export function buildSignIn(config: Config, deps: ServiceDeps, parts: SignInParts) {
  const db = deps.database.db;
  const { limits } = deps;
  const { usersRepo, users, tokens, hasher, activity } = parts;
  // One writer of sign-ins' tokens, for every way to sign in.
  const signInTokens = new SignInTokens(db, usersRepo, tokens, hasher);
  // The second factor: secrets sealed with SECRETS_KEY (without it, its routes answer 503); a sign-in whose
  // first factor proved right is handed to it. Wrong codes count per account like failed logins.
  const { secretsKey } = config.secondFactor;
  const secondFactorCodes = new SecondFactorCodes(secretsKey ? SecretBox.withKey(secretsKey) : undefined);
  const secondFactorRepo = new SecondFactorRepo(db);
  const secondFactorSignIn = new SecondFactorSignIn({
    db,
    repo: secondFactorRepo,
    challenges: new ChallengesRepo(db),
    codes: secondFactorCodes,
    signInTokens,
    usersRepo,
    users,
    accountFailures: limits.loginAccount,
    activity,
  });
  // Failed logins per (email or provider identity, IP), and per account (RATE_LIMIT_LOGIN_ACCOUNT).
  const signIn = new SignIn({
    usersRepo,
    users,
    tokens,
    providers: parts.providers,
    hasher,
    limits: { loginFailures: limits.loginFailures, accountFailures: limits.loginAccount },
    signInTokens,
    activity,
    secondFactor: secondFactorSignIn,
  });
  return { signInTokens, secondFactorCodes, secondFactorRepo, secondFactorSignIn, signIn };
}

export type SignInFlows = ReturnType<typeof buildSignIn>;
