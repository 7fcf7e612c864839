import { sql } from 'kysely';
import type { CodeChannel, CodePurpose } from '../../db/schema.js';
import type { Executor } from '../../db/transaction.js';

/** A code's row as it is written. */
export interface NewOneTimeCode {
  id: string;
  channel: CodeChannel;
  address: string;
  purpose: CodePurpose;
  codeSalt: Buffer;
  codeHash: Buffer;
  tokenHash: Buffer;
  expiresAt: Date;
}

/** The code a guess or a link used up. */
export interface UsedCode {
  id: string;
  address: string;
  purpose: CodePurpose;
}

/** What one guess of a code came to. */
export type Guess =
  | { kind: 'right'; code: UsedCode }
  /** Counted on the live code, if there was one (none: nothing to count on). */
  | { kind: 'wrong' };

/** How long a dead code's row (and the address in it) stays before the next new code sweeps it. */
const KEEP_DEAD_MS = 24 * 3600 * 1000;

/** The SQL of one_time_codes (migration 0042). */
export class OneTimeCodesRepo {
  constructor(private readonly db: Executor) {}

  with(trx: Executor): OneTimeCodesRepo {
    return new OneTimeCodesRepo(trx);
  }

  /**
   * Writes a new code for the address, ending every other code of it (one live code per address, whatever
   * its purpose: the newest mail is the one that works), and sweeps rows dead for a day.
   */
  async replace(code: NewOneTimeCode): Promise<void> {
    await this.db
      .deleteFrom('one_time_codes')
      .where((eb) =>
        eb.or([
          eb.and([eb('channel', '=', code.channel), eb('address', '=', code.address)]),
          eb('expires_at', '<', new Date(Date.now() - KEEP_DEAD_MS)),
        ]),
      )
      .execute();
    await this.db
      .insertInto('one_time_codes')
      .values({
        id: code.id,
        channel: code.channel,
        address: code.address,
        purpose: code.purpose,
        code_salt: code.codeSalt,
        code_hash: code.codeHash,
        token_hash: code.tokenHash,
        expires_at: code.expiresAt,
      })
      .execute();
  }

  /**
   * One guess at the address's live code of `purpose`, in one statement: a right code is used up, a wrong
   * one counted. The row's lock orders concurrent guesses, so at most `maxFailures` wrong ones are ever
   * compared, and of two requests with the right code exactly one gets it (the other finds it used).
   */
  async guess(
    channel: CodeChannel,
    address: string,
    purpose: CodePurpose,
    code: string,
    maxFailures: number,
  ): Promise<Guess> {
    const digits = Buffer.from(code, 'utf8');
    const result = await sql<{ id: string; address: string; purpose: CodePurpose; right: boolean }>`
      UPDATE one_time_codes SET
        used_at = CASE WHEN code_hash = sha256(code_salt || ${digits}) THEN now() ELSE NULL END,
        failures = failures + CASE WHEN code_hash = sha256(code_salt || ${digits}) THEN 0 ELSE 1 END
      WHERE channel = ${channel} AND address = ${address} AND purpose = ${purpose}
        AND used_at IS NULL AND expires_at > now() AND failures < ${maxFailures}
      RETURNING id, address, purpose, used_at IS NOT NULL AS right`.execute(this.db);
    const row = result.rows[0];
    if (!row?.right) return { kind: 'wrong' };
    return { kind: 'right', code: { id: row.id, address: row.address, purpose: row.purpose } };
  }

  /** Uses up the live code of a link's token (of `purpose`), atomically as `guess`; undefined if none. */
  async useToken(
    channel: CodeChannel,
    tokenHash: Buffer,
    purpose: CodePurpose,
    maxFailures: number,
  ): Promise<UsedCode | undefined> {
    const result = await sql<UsedCode>`
      UPDATE one_time_codes SET used_at = now()
      WHERE token_hash = ${tokenHash} AND channel = ${channel} AND purpose = ${purpose}
        AND used_at IS NULL AND expires_at > now() AND failures < ${maxFailures}
      RETURNING id, address, purpose`.execute(this.db);
    return result.rows[0];
  }

  /**
   * Makes a used code live again (a sign-up it was used for was refused, a username taken): the same proof
   * may be tried again with corrected fields, until it expires.
   */
  async release(id: string): Promise<void> {
    await this.db.updateTable('one_time_codes').set({ used_at: null }).where('id', '=', id).execute();
  }
}
