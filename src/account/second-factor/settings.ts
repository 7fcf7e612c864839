import type { UserRow } from '../../db/schema.js';
import { type Executor, writeStatement, writeTransaction } from '../../db/transaction.js';
import { ValidationError } from '../../errors.js';
import type { AuthContext } from '../../http/auth-context.js';
import { qrCodeSvg } from '../../lib/qr-code.js';
import { iso } from '../../lib/time.js';
import { newTotpSecret, otpauthUrl, totpSecretText } from '../../lib/totp.js';
import { type RateCounter, throttledAttempt } from '../../limits/rate-counter.js';
import { writeAccountEvent } from '../../modules/account-events/outbox.js';
import type { SecondFactorRepo, TotpCredential } from '../../modules/second-factor/repo.js';
import type { ClientInfo } from '../client.js';
import type { Reauthentication, ReauthProof } from '../reauth/service.js';
import type { SecurityActivity } from '../security-activity/recorder.js';
import {
  chosenProof,
  freshRecoveryCodes,
  type SecondFactorCodes,
  type SecondFactorProof,
  wrongProof,
} from './codes.js';
import { UncountedCodeError, useBounded } from './guess-bound.js';

export interface SecondFactorStatus {
  totp: { enabled: boolean; created_at: string | null };
  recovery_codes_left: number;
}

export interface TotpSetup {
  secret: string;
  otpauth_url: string;
  qr_svg: string;
}

const alreadyEnabled = () => new ValidationError({ totp: [{ rule: 'second_factor_enabled' }] });
const notEnabled = () => new ValidationError({ totp: [{ rule: 'second_factor_not_enabled' }] });
const noSetup = () => new ValidationError({ code: [{ rule: 'second_factor_setup' }] });
const DISABLED: SecondFactorStatus = { totp: { enabled: false, created_at: null }, recovery_codes_left: 0 };

/** What SecondFactorSettings is built from. */
export interface SecondFactorSettingsDeps {
  db: Executor;
  repo: SecondFactorRepo;
  codes: SecondFactorCodes;
  reauth: Reauthentication;
  guesses: RateCounter;
  /** The issuer an authenticator app shows (APP_NAME). */
  issuer: string;
  /** Enabling, disabling and new recovery codes are logged, and alerted, in their transaction. */
  activity: SecurityActivity;
}

/**
 * The signed-in user turning their second factor on and off. Setting up, disabling and new recovery codes
 * need re-authentication (a stolen session alone must neither read the secret nor remove the factor);
 * disabling and new recovery codes need the second factor too. Wrong codes count per account on `guesses`,
 * as wrong current passwords do.
 */
export class SecondFactorSettings {
  constructor(private readonly deps: SecondFactorSettingsDeps) {}

  async status(auth: AuthContext): Promise<SecondFactorStatus> {
    const credential = await this.deps.repo.findTotp(auth.user.id);
    if (!credential?.enabled_at) return DISABLED;
    return {
      totp: { enabled: true, created_at: iso(credential.enabled_at) },
      recovery_codes_left: await this.deps.repo.recoveryCodesLeft(auth.user.id),
    };
  }

  /** A new secret, pending until a code of it enables it; a pending one is replaced. */
  async setup(auth: AuthContext, proof: ReauthProof): Promise<TotpSetup> {
    const { user } = auth;
    if ((await this.deps.repo.findTotp(user.id))?.enabled_at) throw alreadyEnabled();
    await this.deps.reauth.confirm(auth, proof, 'second_factor');
    const secret = newTotpSecret();
    const sealed = this.deps.codes.seal(secret, user.id);
    // Refused in the same statement when an enable committed meanwhile.
    if (!(await writeStatement(() => this.deps.repo.savePending(user.id, sealed)))) throw alreadyEnabled();
    const url = otpauthUrl(secret, this.deps.issuer, user.email);
    return { secret: totpSecretText(secret), otpauth_url: url, qr_svg: await qrCodeSvg(url) };
  }

  /** The first code of the pending secret turns it on; the recovery codes are shown this once. */
  async enable(auth: AuthContext, code: string, client: ClientInfo): Promise<{ recovery_codes: string[] }> {
    const { user } = auth;
    const credential = await this.deps.repo.findTotp(user.id);
    if (!credential) throw noSetup();
    if (credential.enabled_at) throw alreadyEnabled();
    const secret = this.deps.codes.open(credential.secret, user.id);
    return this.attempt(user, async () => {
      const step = this.deps.codes.stepOf(secret, code);
      if (step === undefined) throw wrongProof({ kind: 'code', code });
      const recovery = freshRecoveryCodes();
      const enabled = await writeTransaction(this.deps.db, async (trx) => {
        const repo = this.deps.repo.with(trx);
        // Only the secret the code was checked against: a setup made meanwhile has replaced it.
        if (!(await repo.enable(user.id, credential.secret, step))) return false;
        await repo.replaceRecoveryCodes(user.id, recovery.hashes);
        await writeAccountEvent(trx, 'second_factor.enabled', user.id, { user_id: user.id });
        const details = { factor: 'totp' };
        return {
          alert: await this.deps.activity.record(
            { user, type: 'second_factor_enabled', client, details },
            trx,
          ),
        };
      });
      if (!enabled) throw noSetup();
      this.deps.activity.send(enabled.alert);
      return { recovery_codes: recovery.shown };
    });
  }

  /** Turns the second factor off: re-authentication, and an authenticator or recovery code. */
  async disable(
    auth: AuthContext,
    reauth: ReauthProof,
    offered: SecondFactorProof,
    client: ClientInfo,
  ): Promise<SecondFactorStatus> {
    const { user } = auth;
    await this.enabledCredential(user.id);
    const proof = chosenProof(offered, true);
    await this.reauthenticate(auth, reauth);
    await this.attempt(user, async () => {
      const removed = await writeTransaction(this.deps.db, async (trx) => {
        const repo = this.deps.repo.with(trx);
        const use = await useBounded(this.deps.codes, repo, user.id, proof);
        if (use.kind === 'refused') throw use.error;
        if (use.kind !== 'right') return false;
        if ((await repo.removeAll(user.id)) === undefined) return false;
        await writeAccountEvent(trx, 'second_factor.disabled', user.id, { user_id: user.id });
        const details = { by: 'user' };
        return {
          alert: await this.deps.activity.record(
            { user, type: 'second_factor_disabled', client, details },
            trx,
          ),
        };
      });
      if (!removed) throw wrongProof(proof);
      this.deps.activity.send(removed.alert);
    });
    return DISABLED;
  }

  /** New recovery codes (the old ones stop working): re-authentication and an authenticator code. */
  async regenerateRecoveryCodes(
    auth: AuthContext,
    reauth: ReauthProof,
    offered: SecondFactorProof,
    client: ClientInfo,
  ): Promise<{ recovery_codes: string[] }> {
    const { user } = auth;
    await this.enabledCredential(user.id);
    const proof = chosenProof(offered, false);
    await this.reauthenticate(auth, reauth);
    return this.attempt(user, async () => {
      const recovery = freshRecoveryCodes();
      const replaced = await writeTransaction(this.deps.db, async (trx) => {
        const repo = this.deps.repo.with(trx);
        const use = await useBounded(this.deps.codes, repo, user.id, proof);
        if (use.kind === 'refused') throw use.error;
        if (use.kind !== 'right') return false;
        await repo.replaceRecoveryCodes(user.id, recovery.hashes);
        const details = { count: recovery.shown.length };
        const type = 'recovery_codes_regenerated';
        return { alert: await this.deps.activity.record({ user, type, client, details }, trx) };
      });
      if (!replaced) throw wrongProof(proof);
      this.deps.activity.send(replaced.alert);
      return { recovery_codes: recovery.shown };
    });
  }

  /**
   * Re-authentication; one with a passkey (two factors in itself: the owner) also ends a run of wrong codes,
   * so a locked authenticator takes codes again.
   */
  private async reauthenticate(auth: AuthContext, proof: ReauthProof): Promise<void> {
    await this.deps.reauth.confirm(auth, proof, 'second_factor');
    if (proof.passkey !== undefined) {
      await writeStatement(() => this.deps.repo.clearFailures(auth.user.id));
    }
  }

  private async enabledCredential(userId: string): Promise<TotpCredential> {
    const credential = await this.deps.repo.findTotp(userId);
    if (!credential?.enabled_at) throw notEnabled();
    return credential;
  }

  /**
   * Wrong codes (a 422) count per account: a stolen session cannot guess its way through. They count on the
   * account's run of wrong codes too (guess-bound.ts), across sign-in and settings.
   */
  private attempt<T>(user: UserRow, check: () => Promise<T>): Promise<T> {
    return throttledAttempt(
      this.deps.guesses,
      `second-factor:${user.id}`,
      check,
      (error) => error instanceof ValidationError && !(error instanceof UncountedCodeError),
    );
  }
}
