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
   * Opens the token's window until now + `durationMs` (replacing any earlier end: a new proof, a new
   * window). Undefined when the token is gone or expired.
   */
  async open(tokenId: string, durationMs: number): Promise<Date | undefined> {
    const row = await this.db
      .updateTable('api_tokens')
      .set({ reauthenticated_until: sql<Date>`now() + ${durationMs} * interval '1 millisecond'` })
      .where('id', '=', tokenId)
      .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', sql<Date>`now()`)]))
      .returning('reauthenticated_until')
      .executeTakeFirst();
    return row?.reauthenticated_until ?? undefined;
  }

  /** Whether the token's window is open now: one probe of the primary key. */
  async isOpen(tokenId: string): Promise<boolean> {
    const row = await this.db
      .selectFrom('api_tokens')
      .select('id')
      .where('id', '=', tokenId)
      .where('reauthenticated_until', '>', sql<Date>`now()`)
      .executeTakeFirst();
    return row !== undefined;
  }
}
