import type { AuthenticationResponseJSON } from '@simplewebauthn/server';
import type { UserRow } from '../../db/schema.js';
import type { Executor } from '../../db/transaction.js';
import { InvalidCredentialsError, type ServiceError } from '../../errors.js';
import { accountKey, attemptKey } from '../../limits/rate-counter.js';
import { type PasskeysRepo, signCountOf } from '../../modules/passkeys/repo.js';
import type { UsersRepo } from '../../modules/users/repo.js';
import type { UsersService } from '../../modules/users/service.js';
import type { ClientInfo } from '../client.js';
import type { ActivityUser, SecurityActivity } from '../security-activity/recorder.js';
import { refused, type SignInOutcome } from '../sign-in/admission.js';
import { LoginAttempts, type LoginLimits } from '../sign-in/login-attempts.js';
import type { SignInTokens } from '../sign-in/tokens.js';
import type { AssertionOptions, PasskeyAssertions, ProvenPasskey } from './assertions.js';

const isFailedLogin = (error: ServiceError) => error instanceof InvalidCredentialsError;

/** What PasskeySignIn is built from. */
export interface PasskeySignInDeps {
  assertions: PasskeyAssertions;
  passkeys: PasskeysRepo;
  usersRepo: UsersRepo;
  users: UsersService;
  /** Writes the token, the gate's rule applied to the account now (a passkey is two factors). */
  sessionTokens: SignInTokens;
  limits: LoginLimits;
  /** Every passkey sign-in, and every failed assertion of a known passkey, goes to the security log. */
  activity: SecurityActivity;
}

/**
 * Signing in with a passkey: a challenge for anyone, then its answer. The passkey stands for two factors
 * (the authenticator, unlocked by the user's PIN or biometric), so it skips the second factor, and a
 * session made with it ends a run of wrong second-factor codes (the owner is back).
 *
 * Under the login-attempt policy: failures per (credential, IP); once the credential names an account,
 * failures on that account's counter too (the one email login counts on), so guesses spread over many
 * addresses stop. The per-IP limit is on the route.
 */
export class PasskeySignIn {
  private readonly attempts: LoginAttempts;

  constructor(private readonly deps: PasskeySignInDeps) {
    this.attempts = new LoginAttempts(deps.limits);
  }

  /** A sign-in challenge, bound to no one: any discoverable passkey of this relying party may answer. */
  options(): Promise<AssertionOptions> {
    return this.deps.assertions.options('authentication', null);
  }

  login(
    challengeId: string,
    response: AuthenticationResponseJSON,
    client: ClientInfo,
  ): Promise<SignInOutcome> {
    let owner: UserRow | undefined;
    return this.attempts.run(
      {
        pair: attemptKey(`passkey:${response.rawId}`, client.ip),
        account: async () => {
          const passkey = await this.deps.passkeys.findByCredentialId(
            Buffer.from(response.rawId, 'base64url'),
          );
          owner = passkey && (await this.deps.usersRepo.findById(passkey.user_id));
          return owner && accountKey(`email:${owner.email.toLowerCase()}`);
        },
      },
      async () => {
        // An unknown credential: the challenge is used up all the same, so it cannot be tried again.
        if (owner === undefined) {
          await this.deps.assertions.prove(challengeId, response, 'authentication').catch(() => undefined);
          return refused(new InvalidCredentialsError());
        }
        const outcome = await this.signIn(owner, challengeId, response, client);
        // The credential is this account's: a failed assertion of it is a failed sign-in of the account.
        if (outcome.kind === 'refused' && isFailedLogin(outcome.error))
          await this.deps.activity.recordFailedSignIn(owner.id, 'passkey', client);
        return outcome;
      },
      isFailedLogin,
    );
  }

  private async signIn(
    owner: ActivityUser,
    challengeId: string,
    response: AuthenticationResponseJSON,
    client: ClientInfo,
  ): Promise<SignInOutcome> {
    let proven: ProvenPasskey;
    try {
      proven = await this.deps.assertions.prove(challengeId, response, 'authentication');
    } catch (error) {
      if (error instanceof InvalidCredentialsError) return refused(error);
      throw error;
    }
    const userId = proven.passkey.user_id;
    const knownDevice = await this.deps.sessionTokens.isKnownDevice(client.deviceToken, userId);
    // The token and the sign-in's event (and a new-device alert) commit together; the alert is sent after.
    const issue = await this.deps.sessionTokens.afterPasskey(
      userId,
      client.userAgent,
      (trx) => this.recordUse(trx, proven),
      (trx) => this.deps.activity.recordSignIn({ user: owner, method: 'passkey', client, knownDevice }, trx),
    );
    if (issue.kind === 'refused') return refused(issue.error);
    if (issue.kind !== 'issued') return refused(new InvalidCredentialsError());
    this.deps.activity.send(issue.alongside);
    const user = await this.deps.usersRepo.findById(userId);
    if (user === undefined) return refused(new InvalidCredentialsError());
    const view = await this.deps.users.view(user);
    return { kind: 'session', signedIn: { user: { ...view, api_token: issue.token.token } } };
  }

  private recordUse(trx: Executor, { passkey, assertion }: ProvenPasskey): Promise<boolean> {
    return this.deps.passkeys
      .with(trx)
      .recordUse(passkey.id, signCountOf(passkey), assertion.newCount, assertion.backedUp);
  }
}
