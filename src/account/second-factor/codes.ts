import { SecondFactorNotConfiguredError, ValidationError } from '../../errors.js';
import { hashRecoveryCode, newRecoveryCodes, normalizedRecoveryCode } from '../../lib/recovery-codes.js';
import type { SecretBox } from '../../lib/secret-box.js';
import { totpStepOf } from '../../lib/totp.js';
import type { SecondFactorRepo, TotpCredential } from '../../modules/second-factor/repo.js';

/** What a request offers as the second factor: an authenticator code or a recovery code. */
export interface SecondFactorProof {
  code?: string | undefined;
  recoveryCode?: string | undefined;
}

/** One proof, chosen: the authenticator code when both came. */
export type ChosenProof = { kind: 'code'; code: string } | { kind: 'recovery_code'; code: string };

/** The field a proof came in (a wrong one is a 422 there). */
export const fieldOf = (proof: ChosenProof): string => proof.kind;

export function wrongProof(proof: ChosenProof): ValidationError {
  return new ValidationError({ [fieldOf(proof)]: [{ rule: 'second_factor_code' }] });
}

/** The proof to check; a request with neither is a 422 on `code` (recovery codes only where `recovery`). */
export function chosenProof(proof: SecondFactorProof, recovery: boolean): ChosenProof {
  if (proof.code !== undefined) return { kind: 'code', code: proof.code };
  if (recovery && proof.recoveryCode !== undefined)
    return { kind: 'recovery_code', code: proof.recoveryCode };
  throw new ValidationError({ code: [{ rule: 'required' }] });
}

/** A fresh set of recovery codes: the codes to show once, and the digests to store. */
export function freshRecoveryCodes(): { shown: string[]; hashes: Buffer[] } {
  const shown = newRecoveryCodes();
  return {
    shown,
    hashes: shown.map((code) => hashRecoveryCode(normalizedRecoveryCode(code) as string)),
  };
}

/**
 * The secrets and codes of the second factor: sealing and opening TOTP secrets with SECRETS_KEY, and checking
 * a proof so that it works once.
 */
export class SecondFactorCodes {
  constructor(
    /** undefined = SECRETS_KEY is not set: every use is a 503 second_factor_not_configured. */
    private readonly box: SecretBox | undefined,
    private readonly now: () => number = Date.now,
  ) {}

  get configured(): boolean {
    return this.box !== undefined;
  }

  /** Sealed for this user alone (the user id is bound to it). */
  seal(secret: Buffer, userId: string): string {
    return this.requireBox().seal(secret, `totp:${userId}`);
  }

  open(sealed: string, userId: string): Buffer {
    return this.requireBox().open(sealed, `totp:${userId}`);
  }

  /** The time step of `code` for this secret now, or undefined when the code is wrong. */
  stepOf(secret: Buffer, code: string): number | undefined {
    return totpStepOf(secret, code, this.now());
  }

  /**
   * Checks `proof` against the user's enabled authenticator or their recovery codes and uses it up (through
   * `repo`, bound to the caller's transaction): an authenticator code only if its time step is later than
   * the last one accepted, a recovery code by deleting it. `reused`: a code of the authenticator, right for
   * its time, whose step was accepted already (a double submit, or a replay): no guess at the secret.
   */
  async use(
    repo: SecondFactorRepo,
    userId: string,
    credential: TotpCredential,
    proof: ChosenProof,
  ): Promise<'right' | 'wrong' | 'reused'> {
    if (proof.kind === 'code') {
      const step = this.stepOf(this.open(credential.secret, userId), proof.code);
      if (step === undefined) return 'wrong';
      return (await repo.acceptStep(userId, step)) ? 'right' : 'reused';
    }
    const normalized = normalizedRecoveryCode(proof.code);
    if (normalized === undefined) return 'wrong';
    return (await repo.consumeRecoveryCode(userId, hashRecoveryCode(normalized))) ? 'right' : 'wrong';
  }

  private requireBox(): SecretBox {
    if (!this.box) throw new SecondFactorNotConfiguredError();
    return this.box;
  }
}
