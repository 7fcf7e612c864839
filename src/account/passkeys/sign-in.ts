import type { AuthenticationResponseJSON } from '@simplewebauthn/server';
import type { Executor } from '../../db/transaction.js';
import { InvalidCredentialsError } from '../../errors.js';
import {
  accountKey,
  attemptKey,
  type RateCounter,
  throttledAttempt,
  unlimited,
} from '../../limits/rate-counter.js';
import { type PasskeysRepo, signCountOf } from '../../modules/passkeys/repo.js';
import type { UsersRepo } from '../../modules/users/repo.js';
import type { UsersService } from '../../modules/users/service.js';
import type { SignedIn } from '../../modules/users/view.js';
import type { ClientInfo } from '../client.js';
import type { ActivityUser, SecurityActivity } from '../security-activity/recorder.js';
import type { LoginLimits } from '../sign-in/service.js';
import type { SignInTokens } from '../sign-in/tokens.js';
import type { AssertionOptions, PasskeyAssertions, ProvenPasskey } from './assertions.js';

const isFailedLogin = (error: unknown) => error instanceof InvalidCredentialsError;

/** What PasskeySignIn is built from. */
export interface PasskeySignInDeps {
  assertions: PasskeyAssertions;
  passkeys: PasskeysRepo;
  usersRepo: UsersRepo;
  users: UsersService;
  signInTokens: SignInTokens;
  limits: LoginLimits;
  /** Every passkey sign-in, and every failed assertion of a known passkey, goes to the security log. */
  activity: SecurityActivity;
}

/**
 * Signing in with a passkey: a challenge for anyone, then its answer. The passkey stands for two factors
 * (the authenticator, unlocked by the user's PIN or biometric), so it skips the second factor.
 *
 * Throttled like email login: failures per (credential, IP); once the credential names an account, failures
 * on that account's counter too (the one email login counts on), so guesses spread over many addresses stop.
 * The per-IP limit is on the route.
 */
export class PasskeySignIn {
  private readonly loginFailures: RateCounter;
  private readonly accountFailures: RateCounter;

  constructor(private readonly deps: PasskeySignInDeps) {
    this.loginFailures = deps.limits.loginFailures;
    this.accountFailures = deps.limits.accountFailures ?? unlimited;
  }

  /** A sign-in challenge, bound to no one: any discoverable passkey of this relying party may answer. */
  options(): Promise<AssertionOptions> {
    return this.deps.assertions.options('authentication', null);
  }

  login(challengeId: string, response: AuthenticationResponseJSON, client: ClientInfo): Promise<SignedIn> {
    return throttledAttempt(
      this.loginFailures,
      attemptKey(`passkey:${response.rawId}`, client.ip),
      async () => {
        const passkey = await this.deps.passkeys.findByCredentialId(Buffer.from(response.rawId, 'base64url'));
        // An unknown credential: the challenge is used up all the same, so it cannot be tried again.
        if (passkey === undefined) {
          await this.deps.assertions.prove(challengeId, response, 'authentication').catch(() => undefined);
          throw new InvalidCredentialsError();
        }
        const user = await this.deps.usersRepo.findById(passkey.user_id);
        if (user === undefined) throw new InvalidCredentialsError();
        return throttledAttempt(
          this.accountFailures,
          accountKey(`email:${user.email.toLowerCase()}`),
          async () => {
            try {
              return await this.signIn(user, challengeId, response, client);
            } catch (error) {
              // The credential is this account's: a failed assertion of it is a failed sign-in of the account.
              if (isFailedLogin(error))
                await this.deps.activity.recordFailedSignIn(user.id, 'passkey', client);
              throw error;
            }
          },
          isFailedLogin,
        );
      },
      isFailedLogin,
    );
  }

  private async signIn(
    owner: ActivityUser,
    challengeId: string,
    response: AuthenticationResponseJSON,
    client: ClientInfo,
  ): Promise<SignedIn> {
    const proven = await this.deps.assertions.prove(challengeId, response, 'authentication');
    const userId = proven.passkey.user_id;
    const knownDevice = await this.deps.signInTokens.isKnownDevice(client.deviceToken, userId);
    // The token and the sign-in's event (and a new-device alert) commit together; the alert is sent after.
    const issue = await this.deps.signInTokens.afterPasskey(
      userId,
      client.userAgent,
      (trx) => this.recordUse(trx, proven),
      (trx) => this.deps.activity.recordSignIn({ user: owner, method: 'passkey', client, knownDevice }, trx),
    );
    if (issue.kind !== 'issued') throw new InvalidCredentialsError();
    this.deps.activity.send(issue.alongside);
    const user = await this.deps.usersRepo.findById(userId);
    if (user === undefined) throw new InvalidCredentialsError();
    return { user: { ...(await this.deps.users.view(user)), api_token: issue.token.token } };
  }

  private recordUse(trx: Executor, { passkey, assertion }: ProvenPasskey): Promise<boolean> {
    return this.deps.passkeys
      .with(trx)
      .recordUse(passkey.id, signCountOf(passkey), assertion.newCount, assertion.backedUp);
  }
}
