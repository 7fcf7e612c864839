/**
 * The access records (접속기록): one record per view or action that touches a user's data, by a staff
 * member (console, admin API) or an operator command. Writing one is one call:
 *
 *     await accessRecords.append({
 *       actor: { kind: 'staff', staffId },          // or { kind: 'cli', osUser }
 *       clientAddress: request.ip,                  // null for a command
 *       subjectId: user.id,                         // null for a search or an export…
 *       action: 'user.unmask.email',                // a short stable name: user.view, user.disable, users.search…
 *       reason,                                     // where the action asks for one
 *       outcome: 'ok',                              // 'refused' (no permission) | 'failed' (an error)
 *       detail: { query: 'kim', rows: 12 },         // …whose query and row count go here (small: ≤ 2 KB)
 *     }, trx);                                      // optional: the caller's transaction
 *
 * Given the caller's transaction, the record commits (or rolls back) with the action it records; append
 * it last there, since it holds the chain's head lock until that transaction ends. Without one it is its
 * own transaction. A malformed entry is a programming error (AccessRecordInputError), never a 422.
 *
 * The monthly review (review.ts) reads two names: every full view of a field is `user.unmask.<field>`, and
 * every export is `users.export` with its row count as `detail.rows`. A request refused for want of a
 * permission is recorded too (`refused`), as is one that failed.
 */
import { type Executor, writeTransaction } from '../../db/transaction.js';
import { type ChainBreak, checkLink, recordHash } from './chain.js';
import type {
  AccessRecordCursor,
  AccessRecordFilter,
  AccessRecordsRepo,
  ChainHead,
  StoredAccessRecord,
} from './repo.js';

export type AccessRecordActor = { kind: 'staff'; staffId: string } | { kind: 'cli'; osUser: string };
export type AccessRecordOutcome = 'ok' | 'refused' | 'failed';

export interface AccessRecordEntry {
  actor: AccessRecordActor;
  clientAddress: string | null;
  subjectId: string | null;
  action: string;
  reason?: string | null | undefined;
  outcome: AccessRecordOutcome;
  detail?: Record<string, unknown> | undefined;
}

/** An entry a caller built wrong: a bug of the caller, found by its tests. */
export class AccessRecordInputError extends Error {
  constructor(detail: string) {
    super(`Invalid access record: ${detail}`);
    this.name = 'AccessRecordInputError';
  }
}

const ACTION = /^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)+$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** Details are a query and a count, an error's one line: small, so a record stays a line of a table. */
export const MAX_DETAIL_BYTES = 2048;
export const MAX_REASON_CHARS = 500;

function checked(entry: AccessRecordEntry): void {
  const actor = entry.actor.kind === 'staff' ? entry.actor.staffId : entry.actor.osUser;
  if (actor.length < 1 || actor.length > 128) throw new AccessRecordInputError('actor must be 1–128 chars');
  if (!ACTION.test(entry.action) || entry.action.length > 64) {
    throw new AccessRecordInputError(`action "${entry.action}" is not a dotted name such as user.view`);
  }
  if (entry.subjectId !== null && !UUID.test(entry.subjectId)) {
    throw new AccessRecordInputError('subjectId must be a user id');
  }
  if ((entry.reason ?? '').length > MAX_REASON_CHARS) {
    throw new AccessRecordInputError(`reason is longer than ${MAX_REASON_CHARS} chars`);
  }
  if ((entry.clientAddress ?? '').length > 64) throw new AccessRecordInputError('clientAddress is too long');
  if (Buffer.byteLength(JSON.stringify(entry.detail ?? {})) > MAX_DETAIL_BYTES) {
    throw new AccessRecordInputError(`detail is larger than ${MAX_DETAIL_BYTES} bytes`);
  }
}

/** What `accounts audit verify` reports. */
export type ChainVerdict =
  | { ok: true; records: number; anchorSeq: string; lastSeq: string; lastHash: string }
  | {
      ok: false;
      records: number;
      /** The first record that does not verify (for `missing_after`, the first one missing). */
      seq: string;
      problem: ChainBreak;
      /** For missing records: the first number that is not there. */
      missingFrom?: string;
    };

/** Records read per page of the verification: its memory is one page, whatever the chain's length. */
export const VERIFY_PAGE = 500;
/** Records the retention's sweep deletes per transaction, so no transaction holds the head for long. */
export const SWEEP_BATCH = 1000;

export class AccessRecords {
  constructor(
    private readonly db: Executor,
    private readonly repo: AccessRecordsRepo,
  ) {}

  /** Appends one record, in `trx` when given (see the head comment). */
  async append(entry: AccessRecordEntry, trx?: Executor): Promise<StoredAccessRecord> {
    checked(entry);
    if (trx !== undefined) return this.appendLocked(this.repo.with(trx), entry);
    return writeTransaction(this.db, (inner) => this.appendLocked(this.repo.with(inner), entry));
  }

  private async appendLocked(repo: AccessRecordsRepo, entry: AccessRecordEntry): Promise<StoredAccessRecord> {
    const head = await repo.lockHead();
    const fields = {
      seq: (head.lastSeq + 1n).toString(),
      at: head.now,
      actorKind: entry.actor.kind,
      actor: entry.actor.kind === 'staff' ? entry.actor.staffId : entry.actor.osUser,
      clientAddress: entry.clientAddress,
      subjectId: entry.subjectId?.toLowerCase() ?? null,
      action: entry.action,
      reason: entry.reason ?? null,
      outcome: entry.outcome,
      detail: entry.detail ?? {},
      prevHash: head.lastHash,
    };
    const record = { ...fields, hash: recordHash(fields) };
    await repo.insertLocked(record);
    return record;
  }

  /**
   * Walks the chain from its anchor to its head in keyset pages and names the first record that does not
   * verify. The walk runs without a transaction, up to the head read first, so it never holds the embedded
   * database's one connection for long; a record after the head is looked for in one statement (an append
   * writes its record and the head together). Only when something looks wrong — or a sweep moved the anchor
   * meanwhile — is the chain walked again in one repeatable-read snapshot, whose answer is the verdict.
   */
  async verify(): Promise<ChainVerdict> {
    const quick = await walkChain(this.repo, await this.repo.head(), true);
    if (quick.ok && !(await this.repo.anyAfterHead())) return quick;
    return this.db
      .transaction()
      .setIsolationLevel('repeatable read')
      .execute(async (trx) => {
        const repo = this.repo.with(trx);
        return walkChain(repo, await repo.head(), false);
      });
  }

  /**
   * Deletes the records older than `retentionDays` before `now`, batch by batch, until none is left or
   * `signal` says stop; returns how many went.
   */
  async sweep(
    retentionDays: number,
    { signal, now = new Date() }: { signal?: AbortSignal; now?: Date } = {},
  ): Promise<number> {
    const cutoff = new Date(now.getTime() - retentionDays * 86_400_000);
    let removed = 0;
    for (;;) {
      const batch = await writeTransaction(this.db, async (trx) => {
        const repo = this.repo.with(trx);
        const head = await repo.lockHead();
        return repo.sweepBatchLocked(head, cutoff, SWEEP_BATCH);
      });
      removed += batch;
      if (batch < SWEEP_BATCH || signal?.aborted) return removed;
    }
  }

  /** One page of the console's filter, newest first; `next` is the cursor of the page after, if any. */
  async page(
    filter: AccessRecordFilter,
    limit: number,
  ): Promise<{ records: StoredAccessRecord[]; next: string | undefined }> {
    const rows = await this.repo.page(filter, limit + 1);
    const records = rows.slice(0, limit);
    const last = records.at(-1);
    return { records, next: rows.length > limit && last ? encodeRecordCursor(last) : undefined };
  }
}

/**
 * The console list's cursor: the last record's time and number, `2026-03-04T05:06:07.089Z_1234`. Not
 * signed: it only bounds a query the staff member may run anyway, and a forged one lists what any other
 * cursor would.
 */
export function encodeRecordCursor(record: { at: Date; seq: string }): string {
  return `${record.at.toISOString()}_${record.seq}`;
}

/** The cursor `encodeRecordCursor` made, or undefined for anything else (the caller's 422). */
export function decodeRecordCursor(text: string): AccessRecordCursor | undefined {
  const match = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z)_([1-9]\d{0,17})$/.exec(text);
  const at = match ? new Date(match[1] as string) : undefined;
  if (!match || at === undefined || Number.isNaN(at.getTime())) return undefined;
  return { at, seq: match[2] as string };
}

/** The walk of `verify`: up to the head's last record when `bounded`, else over every record there is. */
async function walkChain(repo: AccessRecordsRepo, head: ChainHead, bounded: boolean): Promise<ChainVerdict> {
  let position = { seq: head.anchorSeq - 1n, hash: head.anchorHash };
  let records = 0;
  for (;;) {
    const page = await repo.chainPage(position.seq + 1n, VERIFY_PAGE, bounded ? head.lastSeq : undefined);
    for (const record of page) {
      const problem = BigInt(record.seq) > head.lastSeq ? 'after_head' : checkLink(position, record);
      if (problem !== undefined) {
        const missingFrom =
          problem === 'missing_before' ? { missingFrom: (position.seq + 1n).toString() } : {};
        return { ok: false, records, seq: record.seq, problem, ...missingFrom };
      }
      position = { seq: BigInt(record.seq), hash: record.hash };
      records++;
    }
    if (page.length < VERIFY_PAGE) break;
  }
  if (position.seq !== head.lastSeq || position.hash !== head.lastHash) {
    const missing = (position.seq + 1n).toString();
    return { ok: false, records, seq: missing, problem: 'missing_after', missingFrom: missing };
  }
  return {
    ok: true,
    records,
    anchorSeq: head.anchorSeq.toString(),
    lastSeq: head.lastSeq.toString(),
    lastHash: head.lastHash,
  };
}
