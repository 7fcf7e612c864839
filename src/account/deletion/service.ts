import { UnauthenticatedError } from '../../errors.js';
import type { AuthContext } from '../../http/auth-context.js';
import type { Reauthentication, ReauthProof } from '../reauth/service.js';
import type { AccountEraser } from './eraser.js';

/** The signed-in user's own deletion: re-authentication, then the eraser. */
export class AccountDeletion {
  constructor(
    private readonly eraser: AccountEraser,
    private readonly reauth: Reauthentication,
  ) {}

  /**
   * The signed-in user deletes their own account, after re-authenticating (the session alone is what a thief
   * has): a missing or wrong proof is a 422 and deletes nothing.
   */
  async deleteOwn(auth: AuthContext, proof: ReauthProof): Promise<{ deleted: true }> {
    const { user } = auth;
    await this.reauth.confirm(user, proof);
    // Deleted meanwhile (a second tap of the button): the session no longer names anyone.
    if (!(await this.eraser.erase(user))) throw new UnauthenticatedError();
    return { deleted: true };
  }
}
