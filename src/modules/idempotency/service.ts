import { IdempotencyKeyReusedError, ValidationError } from '../../errors.js';
import type { AnswerRecorder, IdempotentRequest, IdempotentWrites } from './key.js';
import type { IdempotencyRepo } from './repo.js';

/** How long an answer is kept for retries at least: the periodic prune removes it after that. */
export const IDEMPOTENCY_KEEP_MS = 24 * 60 * 60 * 1_000;

/**
 * Idempotency-Key for the writes that make something new (register, post/create): a retry of a request
 * whose answer the client never got (a timeout, a 503 while the database was frozen) gets that first
 * answer instead of "already taken" or a second post. The record is written in the write's own transaction,
 * so it exists exactly when the write committed; every read of it is on the primary.
 */
export class IdempotencyService implements IdempotentWrites {
  constructor(
    private readonly repo: IdempotencyRepo,
    private readonly keepMs = IDEMPOTENCY_KEEP_MS,
  ) {}

  async once<T>(
    request: IdempotentRequest | undefined,
    write: (record?: AnswerRecorder<T>) => Promise<T>,
  ): Promise<T> {
    if (request === undefined) return write();
    const earlier = await this.#stored<T>(request);
    if (earlier !== undefined) return earlier.answer;
    try {
      return await write((trx, userId, answer) =>
        this.repo.with(trx).insert({
          keyHash: request.keyHash,
          fingerprint: request.fingerprint,
          userId,
          answer: request.seal(answer),
        }),
      );
    } catch (error) {
      // A concurrent request with the same key may have committed first: its write made ours fail (the
      // email it took, the record's primary key), and its answer is ours. A key reused with other parameters
      // is said as such; anything else (nothing found, or the database gone) is the write's own failure.
      let winner: { answer: T } | undefined;
      try {
        winner = await this.#stored<T>(request);
      } catch (lookupError) {
        if (lookupError instanceof ValidationError) throw lookupError;
      }
      if (winner !== undefined) return winner.answer;
      throw error;
    }
  }

  /** Removes the records past their time; the periodic job of every instance (app/background-jobs.ts). */
  prune(): Promise<number> {
    return this.repo.prune(this.keepMs);
  }

  async #stored<T>(request: IdempotentRequest): Promise<{ answer: T } | undefined> {
    const record = await this.repo.find(request.keyHash);
    if (record === undefined) return undefined;
    if (!request.fingerprint.equals(Buffer.from(record.fingerprint)))
      // Refused, never answered with the first request's answer.
      throw new IdempotencyKeyReusedError();
    return { answer: request.open<T>(record.answer) };
  }
}
