import { isConnectionError, isRetryableConflict } from './errors.js';
import type { ReplicaSet } from './replicas.js';
import type { Executor } from './transaction.js';

/**
 * Where a read-only use case runs its statements, chosen per call: a healthy replica, or the primary. Repos
 * stay unaware of replicas: the service hands the executor it is given to its repo (`repo.with(db)`).
 */
export interface RoutedReads {
  /**
   * Runs `work` (reads only, no transaction) on a replica, unless none is healthy or `userId` wrote within
   * the replicas' staleness bound (they could still miss that write): then on the primary.
   */
  read<T>(userId: string | undefined, work: (db: Executor) => Promise<T>): Promise<T>;
}

/** What marks a user as having just written (the endpoint runner, after a request that may write). */
export interface WriteNotes {
  wrote(userId: string): void;
}

/** The statement was cancelled by its own timeout: the server answered, so it is no reason to try another. */
const STATEMENT_TIMEOUT = '57014';

/**
 * The rule: anonymous reads of the routed endpoints go to a replica; so do a signed-in user's, unless that
 * user sent a request that may write within the last `ReplicaSet.stalenessBoundMs` (then the primary, so a
 * new post, like or deletion shows in the author's next page). The marks live in this process: behind a
 * load balancer another instance does not see them, and there the user's reads are as fresh as the replica
 * (always within REPLICA_MAX_LAG_MS, usually milliseconds) — docs/DEPLOY.md "Read replicas".
 */
export class ReadRouting implements RoutedReads, WriteNotes {
  /** User id → until when their reads stay on the primary; in order of expiry, so pruning stops early. */
  readonly #recentWriters = new Map<string, number>();

  constructor(
    private readonly primary: Executor,
    private readonly replicas: ReplicaSet | undefined,
    private readonly now: () => number = Date.now,
  ) {}

  wrote(userId: string): void {
    if (this.replicas === undefined) return;
    const now = this.now();
    this.#recentWriters.delete(userId);
    this.#recentWriters.set(userId, now + this.replicas.stalenessBoundMs);
    this.#forgetExpired(now);
  }

  async read<T>(userId: string | undefined, work: (db: Executor) => Promise<T>): Promise<T> {
    const replica = this.#replicaFor(userId);
    if (replica === undefined) return work(this.primary);
    try {
      return await work(replica.db);
    } catch (error) {
      // A standby that went away before its next check, or one that cancelled the read for a conflict
      // with the WAL it replays (40001): the same read on the primary answers instead of failing.
      const lost = isConnectionError(error) && (error as { code?: unknown }).code !== STATEMENT_TIMEOUT;
      if (!lost && !isRetryableConflict(error)) throw error;
      if (lost) this.replicas?.reportFailure(replica);
      return work(this.primary);
    }
  }

  #replicaFor(userId: string | undefined) {
    if (this.replicas === undefined) return undefined;
    if (userId !== undefined) {
      const until = this.#recentWriters.get(userId);
      if (until !== undefined && until > this.now()) return undefined;
    }
    return this.replicas.pick();
  }

  #forgetExpired(now: number): void {
    for (const [userId, until] of this.#recentWriters) {
      if (until > now) return;
      this.#recentWriters.delete(userId);
    }
  }
}

/** Every read on the primary: the embedded database, operator commands, and services built without replicas. */
export function primaryReads(primary: Executor): RoutedReads {
  return new ReadRouting(primary, undefined);
}
