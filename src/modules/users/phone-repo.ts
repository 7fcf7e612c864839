import { linkedProviderNames } from '../../db/linked-providers.js';
import type { UserRow, UserWithProviders } from '../../db/schema.js';
import { secondFactorEnabled } from '../../db/second-factor-enabled.js';
import type { Executor } from '../../db/transaction.js';

/** The partial unique index on verified numbers (migration 0043): a race of two verifications ends here. */
export const VERIFIED_PHONE_INDEX = 'users_verified_phone_key';

/** The SQL of the accounts' mobile numbers (users.phone, users.phone_verified). */
export class PhoneNumbersRepo {
  constructor(private readonly db: Executor) {}

  with(trx: Executor): PhoneNumbersRepo {
    return new PhoneNumbersRepo(trx);
  }

  /** Whether an account other than `exceptUserId` has verified this number. */
  async verifiedElsewhere(e164: string, exceptUserId: string): Promise<boolean> {
    const row = await this.db
      .selectFrom('users')
      .select('id')
      .where('phone', '=', e164)
      .where('phone_verified', '=', true)
      .where('id', '<>', exceptUserId)
      .executeTakeFirst();
    return row !== undefined;
  }

  /** The account that verified this number, with what a sign-in reads (on the partial unique index). */
  findWithProvidersByVerifiedPhone(e164: string): Promise<UserWithProviders | undefined> {
    return this.db
      .selectFrom('users')
      .selectAll('users')
      .select(linkedProviderNames.as('linked_providers'))
      .select(secondFactorEnabled.as('second_factor_enabled'))
      .where('phone', '=', e164)
      .where('phone_verified', '=', true)
      .executeTakeFirst();
  }

  /** Sets the account's number (verified or not, `null` to remove it); the row as it now is. */
  set(userId: string, phone: string | null, verified: boolean): Promise<UserRow> {
    return this.db
      .updateTable('users')
      .set({ phone, phone_verified: verified })
      .where('id', '=', userId)
      .returningAll()
      .executeTakeFirstOrThrow();
  }

  /**
   * Marks the account's number verified if it is still `e164` (the user may have added another meanwhile);
   * undefined otherwise. A number verified on another account fails on VERIFIED_PHONE_INDEX.
   */
  verify(userId: string, e164: string): Promise<UserRow | undefined> {
    return this.db
      .updateTable('users')
      .set({ phone_verified: true })
      .where('id', '=', userId)
      .where('phone', '=', e164)
      .returningAll()
      .executeTakeFirst();
  }
}
