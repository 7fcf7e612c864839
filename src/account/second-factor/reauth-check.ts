import { type Executor, writeTransaction } from '../../db/transaction.js';
import type { SecondFactorRepo } from '../../modules/second-factor/repo.js';
import type { SecondFactorCheck, SecondFactorOffer, SecondFactorProofs } from '../reauth/service.js';
import { chosenProof, type SecondFactorCodes, wrongProof } from './codes.js';
import { useBounded } from './guess-bound.js';

/**
 * The second factor as re-authentication checks it (user/reauth's `code` or `recovery_code`): under the
 * account's bound on wrong codes (guess-bound.ts), as at sign-in, and used up when right.
 */
export class SecondFactorReauthCheck implements SecondFactorProofs {
  constructor(
    private readonly db: Executor,
    private readonly repo: SecondFactorRepo,
    private readonly codes: SecondFactorCodes,
  ) {}

  isOn(userId: string): Promise<boolean> {
    return this.repo.isEnabled(userId);
  }

  async check(userId: string, offer: SecondFactorOffer): Promise<SecondFactorCheck> {
    const proof = chosenProof(offer, true);
    const use = await writeTransaction(this.db, (trx) =>
      useBounded(this.codes, this.repo.with(trx), userId, proof),
    );
    if (use.kind === 'wrong') return { kind: 'wrong', error: wrongProof(proof) };
    return use;
  }
}
