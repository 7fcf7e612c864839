import { setMaxListeners } from 'node:events';
import type { WebhookAttemptOutcome } from '../../db/schema-events.js';
import type {
  ClaimedDelivery,
  FannedOut,
  RecordedAttempt,
  WebhookDeliveriesRepo,
  WebhookWork,
} from './deliveries-repo.js';
import type { WebhookEndpointsRepo } from './endpoints-repo.js';
import { OpenedSecrets, type WebhookSecrets } from './secrets.js';
import type { AttemptOutcome, SignedDelivery } from './sender.js';

/** Events fanned out per statement. */
const DISPATCH_BATCH = 100;
/**
 * Deliveries claimed per statement. They are sent SENT_TOGETHER at a time, each round waiting at most the
 * 10 s an attempt may take: 4 rounds, 40 s at worst, well inside the lease.
 */
const CLAIM_BATCH = 40;
const SENT_TOGETHER = 10;
/** A claim holds a delivery this long: a process that dies holding it delays it by at most this. */
export const LEASE_SECONDS = 60;
/** An endpoint failing for this many days in a row is disabled. */
export const DISABLE_AFTER_DAYS = 5;
const PURGE_BATCH = 1000;

export interface DeliveryObserver {
  attempted(endpointId: string, outcome: WebhookAttemptOutcome): void;
  /** The queue as this instance last read it (every 15 s, beside its loop's probe). */
  backlog(backlog: WebhookBacklog): void;
}

/** The queue: pending deliveries and undispatched events, and when the oldest of them happened. */
export interface WebhookBacklog {
  pending: number;
  oldestAt: Date | null;
}

/** How often the delivery loop reads the queue for its gauges (a scrape reads what it read last). */
const BACKLOG_READ_MS = 15_000;

export interface DeliveryLog {
  info(details: object, message: string): void;
  warn(details: object, message: string): void;
}

export interface WebhookDeliveryDeps {
  deliveries: WebhookDeliveriesRepo;
  endpoints: WebhookEndpointsRepo;
  /** undefined = SECRETS_KEY is not set: nothing can be signed (and no endpoint can have been added). */
  secrets: WebhookSecrets | undefined;
  sender: {
    send(delivery: SignedDelivery, signal?: AbortSignal): Promise<AttemptOutcome>;
    /** The deadline of attempts that start now. */
    deadline(): AbortSignal;
    close?(): void;
  };
  /** The wait before each retry; after the last, failed. */
  retryScheduleMs: number[];
  retentionDays: number;
  log: DeliveryLog;
  observer?: DeliveryObserver;
}

/**
 * The delivery of account events, in passes any number of instances run side by side (the state is all in
 * the database): `dispatch` fans new events out to the endpoints subscribed to them and sends the new
 * deliveries it claimed on the way, `deliver` sends what else is due (retries, replays, leases run out),
 * `maintain` disables endpoints that keep failing and purges old events.
 */
export class WebhookDelivery {
  #backlogReadAt = 0;
  readonly #opened = new OpenedSecrets();

  constructor(private readonly deps: WebhookDeliveryDeps) {}

  /**
   * What waits: the tick's one probe. The gauges' reading of the queue is renewed beside it now and then
   * (other instances deliver too).
   */
  async work(): Promise<WebhookWork> {
    if (Date.now() - this.#backlogReadAt > BACKLOG_READ_MS) await this.readBacklog();
    return this.deps.deliveries.work();
  }

  /**
   * Reads the queue for the gauges, from the delivery loop rather than at scrape time: a scrape never waits
   * for a database connection, however busy the pool.
   */
  async readBacklog(): Promise<void> {
    if (!this.deps.observer) return;
    this.#backlogReadAt = Date.now();
    this.deps.observer.backlog(await this.deps.deliveries.backlog());
  }

  /**
   * Fans out every event not yet fanned out, sending the deliveries claimed on the way: how many it sent,
   * and whether it left new deliveries due for `deliver`.
   */
  async dispatch(signal?: AbortSignal): Promise<{ sent: number; leftDue: boolean }> {
    let sent = 0;
    let leftDue = false;
    let fanned: FannedOut;
    do {
      fanned = await this.deps.deliveries.fanOut(DISPATCH_BATCH, CLAIM_BATCH, LEASE_SECONDS);
      await this.attempt(fanned.claimed);
      sent += fanned.claimed.length;
      leftDue ||= fanned.leftDue;
    } while (fanned.events === DISPATCH_BATCH && signal?.aborted !== true);
    return { sent, leftDue };
  }

  /** Sends the due deliveries, a claimed batch at a time, until none is due or `signal` stops it; how many. */
  async deliver(signal?: AbortSignal): Promise<number> {
    let total = 0;
    let claimed: ClaimedDelivery[];
    do {
      claimed = await this.deps.deliveries.claimDue(CLAIM_BATCH, LEASE_SECONDS);
      await this.attempt(claimed);
      total += claimed.length;
    } while (claimed.length === CLAIM_BATCH && signal?.aborted !== true);
    return total;
  }

  /** Lets go of what the sender keeps open between passes (its kept-alive connections). */
  close(): void {
    this.deps.sender.close?.();
  }

  /** Disables the endpoints failing for DISABLE_AFTER_DAYS, and purges events past their retention. */
  async maintain(): Promise<void> {
    for (const endpoint of await this.deps.endpoints.disableFailing(DISABLE_AFTER_DAYS)) {
      this.deps.log.warn(
        // The host, not the URL: a receiver may carry a token in its path or query.
        {
          endpoint: endpoint.id,
          host: hostOf(endpoint.url),
          failingSince: endpoint.failing_since.toISOString(),
        },
        `webhook endpoint disabled: failing for ${DISABLE_AFTER_DAYS} days`,
      );
    }
    let purged: number;
    do {
      purged = await this.deps.deliveries.purge(this.deps.retentionDays, PURGE_BATCH);
    } while (purged === PURGE_BATCH);
  }

  /** Sends a claimed batch, SENT_TOGETHER side by side at a time, then records the outcomes together. */
  private async attempt(claimed: ClaimedDelivery[]): Promise<void> {
    const outcomes: { delivery: ClaimedDelivery; outcome: RecordedAttempt }[] = [];
    for (let start = 0; start < claimed.length; start += SENT_TOGETHER) {
      // One deadline for the round: its attempts start together, so each still gets its whole 10 s.
      const round = claimed.slice(start, start + SENT_TOGETHER);
      const signal = this.deps.sender.deadline();
      // Each attempt listens to it more than once (its wait, its request): not a leak.
      setMaxListeners(4 * SENT_TOGETHER, signal);
      const sent = await Promise.all(
        round.map(async (delivery) => {
          const signed = this.signed(delivery);
          const outcome: AttemptOutcome =
            typeof signed === 'string' ? { error: signed } : await this.deps.sender.send(signed, signal);
          return { delivery, outcome: this.recorded(delivery, outcome) };
        }),
      );
      outcomes.push(...sent);
    }
    for (const index of await this.deps.deliveries.record(outcomes)) {
      const { delivery, outcome } = outcomes[index] as (typeof outcomes)[number];
      this.deps.observer?.attempted(delivery.endpoint_id, outcome.outcome);
    }
  }

  /** What is sent, or why it cannot be signed. */
  private signed(delivery: ClaimedDelivery): SignedDelivery | string {
    const secrets = this.deps.secrets;
    if (secrets === undefined) return 'SECRETS_KEY is not set: cannot sign';
    const signing = [delivery.secret];
    if (
      delivery.previous_secret !== null &&
      (delivery.previous_secret_expires_at?.getTime() ?? 0) > Date.now()
    ) {
      signing.push(delivery.previous_secret);
    }
    let opened: string[];
    try {
      opened = signing.map((sealed) => this.#opened.open(secrets, sealed, delivery.endpoint_id));
    } catch {
      // Another SECRETS_KEY than the one the secret was sealed under: rotate the endpoint's secret.
      return 'the endpoint secret cannot be opened with this SECRETS_KEY';
    }
    const body = JSON.stringify({
      type: delivery.type,
      timestamp: delivery.occurred_at.toISOString(),
      data: delivery.data,
    });
    return { url: delivery.url, eventId: delivery.event_id, body, secrets: opened };
  }

  private recorded(delivery: ClaimedDelivery, outcome: AttemptOutcome): RecordedAttempt {
    const statusCode = outcome.statusCode ?? null;
    const error =
      outcome.error ?? (statusCode !== null && !isSuccess(statusCode) ? `HTTP ${statusCode}` : null);
    if (statusCode !== null && isSuccess(statusCode)) {
      return { statusCode, error: null, outcome: 'delivered', retryInSeconds: 0 };
    }
    // The attempt just made is number attempts + 1; the schedule holds the wait after each failed one.
    const wait = this.deps.retryScheduleMs[delivery.attempts];
    if (wait === undefined) return { statusCode, error, outcome: 'failed', retryInSeconds: 0 };
    return { statusCode, error, outcome: 'retry', retryInSeconds: wait / 1000 };
  }
}

const isSuccess = (status: number) => status >= 200 && status <= 299;

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return '?';
  }
}
