import type { AuthenticationResponseJSON } from '@simplewebauthn/server';
import {
  InvalidCredentialsError,
  type RuleFailure,
  type ServiceError,
  UnauthenticatedError,
  ValidationError,
} from '../../errors.js';
import type { AuthContext } from '../../http/auth-context.js';
import type { PasswordHasher } from '../../lib/passwords.js';
import { iso } from '../../lib/time.js';
import { type RateCounter, throttledAttempt } from '../../limits/rate-counter.js';
import {
  accessTokenField,
  type ProviderCredentials,
  userIdField,
} from '../../modules/providers/credentials.js';
import type { ProviderAccountsRepo } from '../../modules/providers/repo.js';
import type { ProviderVerifier } from '../../providers/verifier.js';
import { dependsOnSecondFactor, factorsNeeded, type SensitiveChange, secondFactorNeeded } from './policy.js';

/**
 * What a request offers to prove that the account's owner is at the keyboard, not merely someone holding one
 * of its sessions: the present password, or a provider token for an identity already linked to the account.
 */
export interface ReauthProof {
  currentPassword?: string | undefined;
  /** Every complete `<p>_user_id` + `<p>_access_token` pair the request carried. */
  credentials: ProviderCredentials[];
  /** A passkey assertion answering a re-authentication challenge (`passkey_challenge_id` + `passkey_response`). */
  passkey?: PasskeyProof | undefined;
  /**
   * An authenticator code or a recovery code beside the password or provider token (user/reauth's `code` or
   * `recovery_code`): the second factor of a two-factor proof.
   */
  secondFactor?: SecondFactorOffer | undefined;
}

export interface SecondFactorOffer {
  code?: string | undefined;
  recoveryCode?: string | undefined;
}

/** What checking a second-factor code came to (the second factor's own bound on wrong codes applied). */
export type SecondFactorCheck =
  | { kind: 'right' }
  /** No second factor is on: the code proves nothing, and nothing needs it. */
  | { kind: 'off' }
  /** A wrong (or already used) code: the 422 to answer, counted as a wrong proof. */
  | { kind: 'wrong'; error: ValidationError }
  /** Not checked (a wait after wrong codes, a locked authenticator): answered, never counted. */
  | { kind: 'refused'; error: ServiceError };

/** What re-authentication needs of the second factor (its settings in the account layer). */
export interface SecondFactorProofs {
  isOn(userId: string): Promise<boolean>;
  /** Checks `offer` against the user's authenticator or recovery codes, and uses it up when right. */
  check(userId: string, offer: SecondFactorOffer): Promise<SecondFactorCheck>;
}

export interface PasskeyProof {
  challengeId: string;
  response: AuthenticationResponseJSON;
}

/** What re-authentication needs of passkeys (the passkey assertions of the account layer). */
export interface PasskeyProofs {
  /**
   * True when `proof` answers a re-authentication challenge made for this user with one of this user's
   * passkeys (the challenge is used up either way, and the passkey's use recorded).
   */
  confirm(userId: string, proof: PasskeyProof): Promise<boolean>;
  /** Whether the user has any passkey (to name the fields a missing proof needs). */
  hasPasskeys(userId: string): Promise<boolean>;
}

const REQUIRED: RuleFailure[] = [{ rule: 'required' }];
const INCORRECT: RuleFailure[] = [{ rule: 'current_password' }];
const PASSKEY_REQUIRED = { passkey_challenge_id: REQUIRED, passkey_response: REQUIRED };
const PASSKEY_INCORRECT = { passkey_response: [{ rule: 'passkey_incorrect' }] };

/**
 * A session's re-authentication window, kept where every instance sees it (the token's row), with the
 * number of factors that opened it.
 */
export interface ReauthWindows {
  /** Opens the token's window until now + `durationMs`; undefined when the token is gone. */
  open(tokenId: string, durationMs: number, factors: number): Promise<Date | undefined>;
  /** The factors of the token's open window, or 0 when none is open. */
  openFactors(tokenId: string): Promise<number>;
}

/** What Reauthentication is built from. */
export interface ReauthenticationDeps {
  hasher: PasswordHasher;
  verifiers: ReadonlyMap<string, ProviderVerifier>;
  links: ProviderAccountsRepo;
  /** Wrong proofs per session (token): a stolen session's guesses stop it, and it alone. */
  tokenGuesses: RateCounter;
  /** Wrong proofs per account, every session together: a higher limit, against guesses spread on many. */
  accountGuesses: RateCounter;
  passkeys: PasskeyProofs;
  secondFactor: SecondFactorProofs;
  windows: ReauthWindows;
  /** REAUTH_WINDOW: how long a proof given to user/reauth stands for the session, from the moment it is given. */
  windowMs: number;
}

const offersProof = (proof: ReauthProof): boolean =>
  proof.currentPassword !== undefined || proof.passkey !== undefined || proof.credentials.length > 0;

const offersSecondFactor = (offer: SecondFactorOffer | undefined): offer is SecondFactorOffer =>
  offer !== undefined && (offer.code !== undefined || offer.recoveryCode !== undefined);

/**
 * Re-authentication before the changes that hand an account to whoever makes them (ASVS 5.0 V6.3, V7.5.1):
 * setting or changing the password, changing the email, linking and unlinking a provider.
 *
 * - An account with a password proves it with `current_password` (a provider token does not stand in for
 *   it: the password is the stronger, account-local factor the owner chose).
 * - A password-less account proves it with a fresh token of a provider already linked to it, verified with
 *   the provider now and naming the linked identity. The session alone never suffices: it is exactly what
 *   a thief has.
 * - Any account with a passkey may prove it with a passkey assertion instead (beside or in place of the
 *   password): a fresh answer to a re-authentication challenge made for this user, by one of its passkeys,
 *   with user verification. It stands for two factors.
 * - With a second factor on, an authenticator or recovery code beside the password (or provider token)
 *   makes the proof two factors. The changes that add or remove a way to sign in need two there
 *   (policy.ts); the others take one.
 *
 * Wrong proofs count per session (the token) and per account (every session together, a higher limit): a
 * stolen session's guesses lock that session, not its owner's, while guesses spread over many sessions
 * still meet the account's limit. A provider that cannot be reached is a 502 and costs no attempt.
 *
 * A proof given to user/reauth opens a window for that session alone (GitHub's sudo mode), recording how
 * many factors opened it: until it ends, a request of that session that offers no proof needs none if the
 * window is as strong as its change needs. The window is absolute (use never extends it), and only a new
 * proof opens another.
 */
export class Reauthentication {
  constructor(private readonly deps: ReauthenticationDeps) {}

  /**
   * Passes when the request proves the owner as strongly as `change` needs, or offers no proof within a
   * window of its session that strong; a proof offered is always checked, window or not. A proof or window
   * of one factor where two are needed is the 422 `reauth_second_factor`.
   */
  async confirm(auth: AuthContext, proof: ReauthProof, change: SensitiveChange): Promise<void> {
    const needed = await this.factorsNeeded(auth.user.id, change);
    if (!offersProof(proof)) {
      const window = await this.deps.windows.openFactors(auth.tokenId);
      if (window >= needed) return;
      if (window > 0) throw secondFactorNeeded();
    }
    if ((await this.check(auth, proof)) < needed) throw secondFactorNeeded();
  }

  /** user/reauth: checks the proof (never the window: it cannot renew itself), then opens the window. */
  async openWindow(auth: AuthContext, proof: ReauthProof): Promise<{ reauthenticated_until: string }> {
    const factors = await this.check(auth, proof);
    const until = await this.deps.windows.open(auth.tokenId, this.deps.windowMs, factors);
    // Revoked while the proof was checked: the session no longer exists.
    if (until === undefined) throw new UnauthenticatedError();
    return { reauthenticated_until: iso(until) };
  }

  private async factorsNeeded(userId: string, change: SensitiveChange): Promise<number> {
    if (!dependsOnSecondFactor(change)) return factorsNeeded(change, false);
    return factorsNeeded(change, await this.deps.secondFactor.isOn(userId));
  }

  /** Checks the proof; the number of factors it proved (a wrong one throws). */
  private async check(auth: AuthContext, proof: ReauthProof): Promise<number> {
    const { user } = auth;
    const passkey = proof.passkey;
    if (passkey !== undefined) {
      // A wrong assertion counts like a wrong password, on the same counters.
      await this.attempt(auth, async () => {
        if (!(await this.deps.passkeys.confirm(user.id, passkey)))
          throw new ValidationError(PASSKEY_INCORRECT);
      });
      return 2;
    }
    await this.checkFirstFactor(auth, proof);
    const offer = proof.secondFactor;
    if (!offersSecondFactor(offer)) return 1;
    let wrong: ValidationError | undefined;
    let right = false;
    await this.attempt(
      auth,
      async () => {
        const checked = await this.deps.secondFactor.check(user.id, offer);
        if (checked.kind === 'wrong') wrong = checked.error;
        if (checked.kind === 'wrong' || checked.kind === 'refused') throw checked.error;
        right = checked.kind === 'right';
      },
      // Only a wrong code is a guess: a wait or a locked authenticator checked nothing.
      (error) => error === wrong,
    );
    return right ? 2 : 1;
  }

  private async checkFirstFactor(auth: AuthContext, proof: ReauthProof): Promise<void> {
    const { user } = auth;
    const storedHash = user.password_hash;
    if (storedHash !== null) {
      const password = proof.currentPassword;
      if (password === undefined) throw new ValidationError({ current_password: REQUIRED });
      await this.attempt(auth, async () => {
        if (!(await this.deps.hasher.verify(storedHash, password))) {
          throw new ValidationError({ current_password: INCORRECT });
        }
      });
      return;
    }
    const linked = new Map(await this.deps.links.identitiesOf(user.id));
    // Only providers this deployment can verify with count; the first offered one that is linked is used.
    const offered = proof.credentials.find(
      (credentials) => linked.has(credentials.provider) && this.deps.verifiers.has(credentials.provider),
    );
    if (!offered) throw await this.missingProof(user.id, [...linked.keys()]);
    await this.attempt(auth, async () => {
      const wrong = new ValidationError({ [accessTokenField(offered.provider)]: INCORRECT });
      // The identity must be the linked one: a genuine token for some other identity proves nothing here.
      if (linked.get(offered.provider) !== offered.userId) throw wrong;
      try {
        await this.deps.verifiers.get(offered.provider)?.verify(offered.userId, offered.accessToken);
      } catch (error) {
        if (error instanceof InvalidCredentialsError) throw wrong;
        throw error;
      }
    });
  }

  /**
   * Names the fields of one linked, verifiable provider (any linked one would do), else the passkey's when
   * the account has one, else current_password.
   */
  private async missingProof(userId: string, linkedNames: string[]): Promise<ValidationError> {
    const provider = linkedNames.filter((name) => this.deps.verifiers.has(name)).sort()[0];
    if (provider === undefined) {
      if (await this.deps.passkeys.hasPasskeys(userId)) return new ValidationError(PASSKEY_REQUIRED);
      return new ValidationError({ current_password: REQUIRED });
    }
    return new ValidationError({ [userIdField(provider)]: REQUIRED, [accessTokenField(provider)]: REQUIRED });
  }

  /**
   * One proof under both counters: the session's first (a session over its limit costs the account
   * nothing more), then the account's. A wrong proof keeps both hits; a right one clears both.
   */
  private attempt(
    auth: AuthContext,
    check: () => Promise<void>,
    isWrongProof: (error: unknown) => boolean = (error) => error instanceof ValidationError,
  ): Promise<void> {
    return throttledAttempt(
      this.deps.tokenGuesses,
      `reauth-token:${auth.tokenId}`,
      // The same account key as before the session's own count existed, so limits in flight carry over.
      () =>
        throttledAttempt(this.deps.accountGuesses, `current-password:${auth.user.id}`, check, isWrongProof),
      isWrongProof,
    );
  }
}
