import type { AuthenticationResponseJSON } from '@simplewebauthn/server';
import type { UserRow } from '../../db/schema.js';
import {
  InvalidCredentialsError,
  type RuleFailure,
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

/** A session's re-authentication window, kept where every instance sees it (the token's row). */
export interface ReauthWindows {
  /** Opens the token's window until now + `durationMs`; undefined when the token is gone. */
  open(tokenId: string, durationMs: number): Promise<Date | undefined>;
  isOpen(tokenId: string): Promise<boolean>;
}

/** What Reauthentication is built from. */
export interface ReauthenticationDeps {
  hasher: PasswordHasher;
  verifiers: ReadonlyMap<string, ProviderVerifier>;
  links: ProviderAccountsRepo;
  guesses: RateCounter;
  passkeys: PasskeyProofs;
  windows: ReauthWindows;
  /** REAUTH_WINDOW: how long a proof given to user/reauth stands for the session, from the moment it is given. */
  windowMs: number;
}

const offersProof = (proof: ReauthProof): boolean =>
  proof.currentPassword !== undefined || proof.passkey !== undefined || proof.credentials.length > 0;

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
 *   with user verification. It stands for two factors, so it is at least as strong as the password.
 *
 * Wrong proofs of either kind count on one per-account counter (whatever the address): a stolen session
 * cannot guess at it. A provider that cannot be reached is a 502 and costs no attempt.
 *
 * A proof given to user/reauth opens a window for that session alone (GitHub's sudo mode): until it ends,
 * a request of that session that offers no proof needs none. The window is absolute (use never extends
 * it), and only a new proof opens another.
 */
export class Reauthentication {
  constructor(private readonly deps: ReauthenticationDeps) {}

  /**
   * Passes when the request proves the owner, or offers no proof within its session's window; a proof
   * offered is always checked, window or not.
   */
  async confirm(auth: AuthContext, proof: ReauthProof): Promise<void> {
    if (!offersProof(proof) && (await this.deps.windows.isOpen(auth.tokenId))) return;
    await this.check(auth.user, proof);
  }

  /** user/reauth: checks the proof (never the window: it cannot renew itself), then opens the window. */
  async openWindow(auth: AuthContext, proof: ReauthProof): Promise<{ reauthenticated_until: string }> {
    await this.check(auth.user, proof);
    const until = await this.deps.windows.open(auth.tokenId, this.deps.windowMs);
    // Revoked while the proof was checked: the session no longer exists.
    if (until === undefined) throw new UnauthenticatedError();
    return { reauthenticated_until: iso(until) };
  }

  private async check(user: UserRow, proof: ReauthProof): Promise<void> {
    const passkey = proof.passkey;
    if (passkey !== undefined) {
      // A wrong assertion counts like a wrong password, on the same per-account counter.
      await this.attempt(user.id, async () => {
        if (!(await this.deps.passkeys.confirm(user.id, passkey)))
          throw new ValidationError(PASSKEY_INCORRECT);
      });
      return;
    }
    const storedHash = user.password_hash;
    if (storedHash !== null) {
      const password = proof.currentPassword;
      if (password === undefined) throw new ValidationError({ current_password: REQUIRED });
      await this.attempt(user.id, async () => {
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
    await this.attempt(user.id, async () => {
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

  private attempt(userId: string, check: () => Promise<void>): Promise<void> {
    // The same key as before this service existed, so limits in flight carry over a deploy.
    return throttledAttempt(
      this.deps.guesses,
      `current-password:${userId}`,
      check,
      (error) => error instanceof ValidationError,
    );
  }
}
