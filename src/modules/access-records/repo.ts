import { sql } from 'kysely';
import type { Executor } from '../../db/transaction.js';
import type { ChainedFields } from './chain.js';

/** A stored record as the chain and the console read it. */
export type StoredAccessRecord = ChainedFields & { hash: string };

/** The head row: the last record and the anchor the verification starts from. */
export interface ChainHead {
  lastSeq: bigint;
  lastHash: string;
  anchorSeq: bigint;
  anchorHash: string;
}

/** Where a page of the console's list ends: its last record's time and number. */
export interface AccessRecordCursor {
  at: Date;
  seq: string;
}

/** The console's filter (/console/audit): each part optional, newest first by (at, seq), keyset. */
export interface AccessRecordFilter {
  actorKind?: 'staff' | 'cli';
  actor?: string;
  subjectId?: string;
  action?: string;
  from?: Date;
  until?: Date;
  /** Only records before this one in the list's order (the page before's last). */
  before?: AccessRecordCursor;
}

interface RecordRow {
  seq: string | number | bigint;
  at: Date;
  actor_kind: 'staff' | 'cli';
  actor: string;
  client_address: string | null;
  subject_id: string | null;
  action: string;
  reason: string | null;
  outcome: 'ok' | 'refused' | 'failed';
  detail: unknown;
  prev_hash: string;
  hash: string;
}

function toRecord(row: RecordRow): StoredAccessRecord {
  return {
    seq: String(row.seq),
    at: new Date(row.at),
    actorKind: row.actor_kind,
    actor: row.actor,
    clientAddress: row.client_address,
    subjectId: row.subject_id,
    action: row.action,
    reason: row.reason,
    outcome: row.outcome,
    // jsonb arrives parsed from both drivers; text only from a driver that left it alone.
    detail: typeof row.detail === 'string' ? (JSON.parse(row.detail) as unknown) : row.detail,
    prevHash: row.prev_hash,
    hash: row.hash,
  };
}

/** The SQL of the access records (migration 0045). */
export class AccessRecordsRepo {
  constructor(private readonly db: Executor) {}

  with(trx: Executor): AccessRecordsRepo {
    return new AccessRecordsRepo(trx);
  }

  /**
   * Locks the head row until the transaction ends (every append of every instance waits here, so the
   * chain never forks) and reads it, with the time the next record gets: the database's clock to the
   * millisecond, read under the lock so the records' times rise with their numbers.
   */
  async lockHead(): Promise<ChainHead & { now: Date }> {
    const { rows } = await sql<{
      last_seq: string | number | bigint;
      last_hash: string;
      anchor_seq: string | number | bigint;
      anchor_hash: string;
      now: Date;
    }>`SELECT last_seq, last_hash, anchor_seq, anchor_hash,
        date_trunc('milliseconds', clock_timestamp()) AS now
      FROM access_record_head FOR UPDATE`.execute(this.db);
    const row = rows[0];
    if (!row) throw new Error('access_record_head has no row (migration 0045)');
    return { ...headOf(row), now: new Date(row.now) };
  }

  async head(): Promise<ChainHead> {
    const row = await this.db.selectFrom('access_record_head').selectAll().executeTakeFirstOrThrow();
    return headOf(row);
  }

  /** Inserts the record and moves the head to it; the caller holds the head's lock (lockHead). */
  async insertLocked(record: StoredAccessRecord): Promise<void> {
    await this.db
      .insertInto('access_records')
      .values({
        seq: record.seq,
        at: record.at,
        actor_kind: record.actorKind,
        actor: record.actor,
        client_address: record.clientAddress,
        subject_id: record.subjectId,
        action: record.action,
        reason: record.reason,
        outcome: record.outcome,
        detail: JSON.stringify(record.detail),
        prev_hash: record.prevHash,
        hash: record.hash,
      })
      .execute();
    await this.db
      .updateTable('access_record_head')
      .set({ last_seq: record.seq, last_hash: record.hash })
      .execute();
  }

  /** Up to `limit` records from `fromSeq` on (to `toSeq` when given), in the chain's order: verify's pages. */
  async chainPage(fromSeq: bigint, limit: number, toSeq?: bigint): Promise<StoredAccessRecord[]> {
    let query = this.db
      .selectFrom('access_records')
      .selectAll()
      .where(sql<boolean>`seq >= ${fromSeq.toString()}::bigint`);
    if (toSeq !== undefined) query = query.where(sql<boolean>`seq <= ${toSeq.toString()}::bigint`);
    const rows = await query.orderBy('seq').limit(limit).execute();
    return rows.map(toRecord);
  }

  /** Whether a record lies past the head's last one: one statement, so one snapshot of both tables. */
  async anyAfterHead(): Promise<boolean> {
    const { rows } = await sql<{ found: boolean }>`SELECT EXISTS (
        SELECT 1 FROM access_records WHERE seq > (SELECT last_seq FROM access_record_head)
      ) AS found`.execute(this.db);
    return rows[0]?.found === true;
  }

  /**
   * One page of the console's filter, newest first by (at, seq): on the index of the actor, the subject or
   * the action when one is given, else on `at`; a period and the cursor are ranges of the same index.
   */
  async page(filter: AccessRecordFilter, limit: number): Promise<StoredAccessRecord[]> {
    let query = this.db.selectFrom('access_records').selectAll();
    if (filter.actorKind !== undefined) query = query.where('actor_kind', '=', filter.actorKind);
    if (filter.actor !== undefined) query = query.where('actor', '=', filter.actor);
    if (filter.subjectId !== undefined) query = query.where('subject_id', '=', filter.subjectId);
    if (filter.action !== undefined) query = query.where('action', '=', filter.action);
    if (filter.from !== undefined) query = query.where('at', '>=', filter.from);
    if (filter.until !== undefined) query = query.where('at', '<', filter.until);
    if (filter.before !== undefined) {
      query = query.where(
        sql<boolean>`(at, seq) < (${filter.before.at}::timestamptz, ${filter.before.seq}::bigint)`,
      );
    }
    const rows = await query.orderBy('at', 'desc').orderBy('seq', 'desc').limit(limit).execute();
    return rows.map(toRecord);
  }

  /**
   * The retention's sweep, one batch in the caller's transaction: deletes the oldest records (from the
   * anchor on, in chain order) older than `cutoff`, at most `batch`, and moves the anchor past them, so the
   * verification starts from the first kept record and the hash it chains to. Only a prefix of the chain
   * goes: a record is never deleted while an older one stays. Returns how many went.
   */
  async sweepBatchLocked(head: ChainHead, cutoff: Date, batch: number): Promise<number> {
    const { rows } = await sql<{ seq: string | number | bigint; hash: string; at: Date }>`
      SELECT seq, hash, at FROM access_records WHERE seq >= ${head.anchorSeq.toString()}::bigint
      ORDER BY seq LIMIT ${batch}`.execute(this.db);
    let last: { seq: string | number | bigint; hash: string } | undefined;
    for (const row of rows) {
      if (new Date(row.at) >= cutoff) break;
      last = row;
    }
    if (last === undefined) return 0;
    const lastSeq = String(last.seq);
    // The trigger lets this transaction delete (and only delete): the sweep's own setting.
    await sql`SELECT set_config('accounts.access_record_sweep', 'on', true)`.execute(this.db);
    const deleted = await sql`DELETE FROM access_records WHERE seq <= ${lastSeq}::bigint`.execute(this.db);
    await sql`SELECT set_config('accounts.access_record_sweep', 'off', true)`.execute(this.db);
    await this.db
      .updateTable('access_record_head')
      .set({ anchor_seq: (BigInt(lastSeq) + 1n).toString(), anchor_hash: last.hash })
      .execute();
    return Number(deleted.numAffectedRows ?? 0);
  }
}

function headOf(row: {
  last_seq: string | number | bigint;
  last_hash: string;
  anchor_seq: string | number | bigint;
  anchor_hash: string;
}): ChainHead {
  return {
    lastSeq: BigInt(row.last_seq),
    lastHash: row.last_hash,
    anchorSeq: BigInt(row.anchor_seq),
    anchorHash: row.anchor_hash,
  };
}
