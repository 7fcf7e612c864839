import type { Executor } from '../../db/transaction.js';

export interface IdempotencyRecord {
  keyHash: Buffer;
  fingerprint: Buffer;
  userId: string;
  answer: Buffer;
}

/** How many expired records one DELETE removes: a prune never holds many row locks, or the index, for long. */
const PRUNE_BATCH = 1_000;

export class IdempotencyRepo {
  constructor(private readonly db: Executor) {}

  with(trx: Executor): IdempotencyRepo {
    return new IdempotencyRepo(trx);
  }

  /** On the primary key. */
  find(keyHash: Buffer): Promise<{ fingerprint: Uint8Array; answer: Uint8Array } | undefined> {
    return this.db
      .selectFrom('idempotency_keys')
      .select(['fingerprint', 'answer'])
      .where('key_hash', '=', keyHash)
      .executeTakeFirst();
  }

  /** A second record of one key fails on the primary key (a concurrent request with the key committed). */
  async insert(record: IdempotencyRecord): Promise<void> {
    await this.db
      .insertInto('idempotency_keys')
      .values({
        key_hash: record.keyHash,
        fingerprint: record.fingerprint,
        user_id: record.userId,
        answer: record.answer,
      })
      .execute();
  }

  /** Removes the records older than `keepMs`, oldest first, a batch at a time (on the created_at index). */
  async prune(keepMs: number): Promise<number> {
    let removed = 0;
    for (;;) {
      const result = await this.db
        .deleteFrom('idempotency_keys')
        .where('key_hash', 'in', (eb) =>
          eb
            .selectFrom('idempotency_keys')
            .select('key_hash')
            .where('created_at', '<', new Date(Date.now() - keepMs))
            .orderBy('created_at')
            .limit(PRUNE_BATCH),
        )
        .executeTakeFirst();
      const batch = Number(result.numDeletedRows);
      removed += batch;
      if (batch < PRUNE_BATCH) return removed;
    }
  }
}
