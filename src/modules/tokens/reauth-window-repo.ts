import { sql } from 'kysely';
import type { Executor } from '../../db/transaction.js';

/**
 * A session's re-authentication window (user/reauth), kept on its token's row: every instance sees it, it
 * belongs to that one token, and revoking the token (deleting its row) ends it. Times are the database's
 * clock, the one clock every instance shares.
 */
export class ReauthWindowsRepo {
  constructor(private readonly db: Executor) {}

  /**
   * Opens the token's window until now + `durationMs`, recording the `factors` that opened it (replacing
   * any earlier window: a new proof, a new window). Undefined when the token is gone or expired.
   */
  async open(tokenId: string, durationMs: number, factors: number): Promise<Date | undefined> {
    const row = await this.db
      .updateTable('api_tokens')
      .set({
        reauthenticated_until: sql<Date>`now() + ${durationMs} * interval '1 millisecond'`,
        reauth_factors: factors,
      })
      .where('id', '=', tokenId)
      .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', sql<Date>`now()`)]))
      .returning('reauthenticated_until')
      .executeTakeFirst();
    return row?.reauthenticated_until ?? undefined;
  }

  /** The factors of the token's window if it is open now, else 0: one probe of the primary key. */
  async openFactors(tokenId: string): Promise<number> {
    const row = await this.db
      .selectFrom('api_tokens')
      .select('reauth_factors')
      .where('id', '=', tokenId)
      .where('reauthenticated_until', '>', sql<Date>`now()`)
      .executeTakeFirst();
    return row === undefined ? 0 : (row.reauth_factors ?? 1);
  }
}
