import { sql } from 'kysely';
import type { DataExportRow } from '../../db/schema.js';
import type { Executor } from '../../db/transaction.js';

/** A new export: due at once, so the writer's claim (or, should it die first, any instance's) builds it. */
export interface NewDataExport {
  id: string;
  userId: string;
  locale: string;
}

/** A zip to remove: which export it was, and its key in the export store. */
export interface ExportFile {
  id: string;
  file_key: string;
}

/** The SQL of the data_exports table (migration 0018). */
export class DataExportsRepo {
  constructor(private readonly db: Executor) {}

  with(trx: Executor): DataExportsRepo {
    return new DataExportsRepo(trx);
  }

  /**
   * Inserts a pending export unless the user has one: the partial unique index settles two requests racing
   * (the second waits for the first to commit, then inserts nothing). Undefined when one was pending.
   */
  async insertPending(entry: NewDataExport): Promise<DataExportRow | undefined> {
    return this.db
      .insertInto('data_exports')
      .values({ id: entry.id, user_id: entry.userId, locale: entry.locale })
      .onConflict((conflict) => conflict.column('user_id').where('status', '=', 'pending').doNothing())
      .returningAll()
      .executeTakeFirst();
  }

  /** The user's pending export, on the partial unique index. */
  findPendingOf(userId: string): Promise<DataExportRow | undefined> {
    return this.db
      .selectFrom('data_exports')
      .selectAll()
      .where('user_id', '=', userId)
      .where('status', '=', 'pending')
      .executeTakeFirst();
  }

  /** One export by id (the primary key), whoever owns it: the caller checks the owner or the link. */
  find(id: string): Promise<DataExportRow | undefined> {
    return this.db.selectFrom('data_exports').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /**
   * Claims the earliest due pending export for one build: counts the attempt and moves `next_attempt_at` a
   * lease ahead, in one statement that skips rows another instance holds (FOR UPDATE SKIP LOCKED).
   */
  async claimDue(leaseSeconds: number): Promise<DataExportRow | undefined> {
    const { rows } = await sql<DataExportRow>`
      UPDATE data_exports
      SET attempts = attempts + 1, next_attempt_at = now() + make_interval(secs => ${leaseSeconds})
      WHERE id = (
        SELECT id FROM data_exports
        WHERE status = 'pending' AND next_attempt_at <= now()
        ORDER BY next_attempt_at
        LIMIT 1
        FOR UPDATE SKIP LOCKED
      )
      RETURNING *`.execute(this.db);
    return rows[0];
  }

  /**
   * Marks a built export ready, with its zip, until `ttlSeconds` from now. False when it is no longer pending
   * (built meanwhile by another instance, or the account was erased): the caller removes its zip.
   */
  async markReady(id: string, fileKey: string, ttlSeconds: number): Promise<DataExportRow | undefined> {
    return this.db
      .updateTable('data_exports')
      .set({
        status: 'ready',
        file_key: fileKey,
        last_error: null,
        ready_at: sql<Date>`now()`,
        expires_at: sql<Date>`now() + make_interval(secs => ${ttlSeconds})`,
      })
      .where('id', '=', id)
      .where('status', '=', 'pending')
      .returningAll()
      .executeTakeFirst();
  }

  /** A failed build: due again after `retryInSeconds`, or given up (`failed`) when undefined. */
  async markAttemptFailed(id: string, error: string, retryInSeconds: number | undefined): Promise<void> {
    await this.db
      .updateTable('data_exports')
      .set(
        retryInSeconds === undefined
          ? { status: 'failed', last_error: error }
          : {
              last_error: error,
              next_attempt_at: sql<Date>`now() + make_interval(secs => ${retryInSeconds})`,
            },
      )
      .where('id', '=', id)
      .where('status', '=', 'pending')
      .execute();
  }

  /** Ready exports whose time is up, oldest first, on the partial expiry index. */
  dueToExpire(limit: number): Promise<ExportFile[]> {
    return this.db
      .selectFrom('data_exports')
      .select(['id', sql<string>`file_key`.as('file_key')])
      .where('status', '=', 'ready')
      .where('expires_at', '<=', sql<Date>`now()`)
      .orderBy('expires_at')
      .limit(limit)
      .execute();
  }

  /** Marks exports expired once their zips are gone. */
  async markExpired(ids: readonly string[]): Promise<void> {
    if (ids.length === 0) return;
    await this.db
      .updateTable('data_exports')
      .set({ status: 'expired', file_key: null })
      .where('id', 'in', [...ids])
      .where('status', '=', 'ready')
      .execute();
  }

  /** The user's exports, oldest first (the data export lists them), on the (user_id, created_at) index. */
  listOf(userId: string): Promise<DataExportRow[]> {
    return this.db
      .selectFrom('data_exports')
      .selectAll()
      .where('user_id', '=', userId)
      .orderBy('created_at')
      .orderBy('id')
      .execute();
  }

  /**
   * One page of the user's exports, newest first, after the export `afterId`: keyset on (created_at, id),
   * never OFFSET. The bound is that export's own created_at, read by its primary key in this statement (a
   * value through JavaScript would lose its microseconds and skip rows). The `created_at <=` condition is
   * where the backward scan of the (user_id, created_at) index starts; ties on created_at are put in id order
   * by an incremental sort of the rows read, never of the whole list. Reads `limit` rows; the caller asks for
   * one more to learn whether a page follows. An `afterId` not among the user's exports gives no rows.
   */
  pageOf(userId: string, afterId: string | undefined, limit: number): Promise<DataExportRow[]> {
    let query = this.db
      .selectFrom('data_exports')
      .selectAll()
      .where('user_id', '=', userId)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(limit);
    if (afterId !== undefined) {
      const bound = sql<Date>`(SELECT created_at FROM data_exports
        WHERE id = ${afterId}::uuid AND user_id = ${userId}::uuid)`;
      query = query
        .where('created_at', '<=', bound)
        .where(sql<boolean>`(created_at, id) < (${bound}, ${afterId}::uuid)`);
    }
    return query.execute();
  }

  /** The zips a user's exports hold (removed with the account), on the (user_id, created_at) index. */
  async fileKeysOf(userId: string): Promise<string[]> {
    const rows = await this.db
      .selectFrom('data_exports')
      .select('file_key')
      .where('user_id', '=', userId)
      .where('file_key', 'is not', null)
      .execute();
    return rows.flatMap((row) => (row.file_key === null ? [] : [row.file_key]));
  }

  /** The HMAC key of download links (created by migration 0018). */
  async linkSecret(): Promise<Uint8Array> {
    const row = await this.db
      .selectFrom('service_secrets')
      .select('secret')
      .where('name', '=', 'data_export_link')
      .executeTakeFirstOrThrow();
    return row.secret;
  }
}
