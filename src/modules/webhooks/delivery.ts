import { setMaxListeners } from 'node:events';
import type { WebhookAttemptOutcome } from '../../db/schema-events.js';
import type {
  ClaimedDelivery,
  RecordedAttempt,
  WebhookDeliveriesRepo,
  WebhookWork,
} from './deliveries-repo.js';
import type { WebhookEndpointsRepo } from './endpoints-repo.js';
import { OpenedSecrets, type WebhookSecrets } from './secrets.js';
import type { AttemptOutcome, SignedDelivery } from './sender.js';

/**
 * Events fanned out per statement: their deliveries are all claimed for the pass that fans them out. Under
 * load, a pass's deliveries are then one insert, one delete and their attempts: no second claim, and few
 * statements for many deliveries.
 */
const DISPATCH_BATCH = 100;
/** Due deliveries claimed per statement (retries, replays, deliveries let go or whose lease ran out). */
const CLAIM_BATCH = 100;
/** Deliveries sent side by side: a round, under one deadline (an endpoint's agent keeps this many connections). */
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
    /** The longest an attempt takes: how long before its lease runs out a round may still start. */
    readonly timeoutMs: number;
    close?(): void;
  };
  /** How long a claim holds its deliveries; LEASE_SECONDS. */
  leaseSeconds?: number;
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
  readonly #leaseSeconds: number;

  constructor(private readonly deps: WebhookDeliveryDeps) {
    this.#leaseSeconds = deps.leaseSeconds ?? LEASE_SECONDS;
  }

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
   * Fans out every event not yet fanned out and sends the deliveries it claims on the way: how many it sent,
   * and how many it let go (due again for `deliver`: a pass stopped, or the claim's time ran short).
   */
  async dispatch(signal?: AbortSignal): Promise<Sent> {
    const total: Sent = { sent: 0, released: 0 };
    let events: number;
    do {
      const claimedAt = Date.now();
      const fanned = await this.deps.deliveries.fanOut(DISPATCH_BATCH, this.#leaseSeconds);
      events = fanned.events;
      addTo(total, await this.attempt(fanned.claimed, claimedAt, signal));
    } while (events === DISPATCH_BATCH && signal?.aborted !== true);
    return total;
  }

  /** Sends the due deliveries, a claimed batch at a time, until none is due or `signal` stops it. */
  async deliver(signal?: AbortSignal): Promise<Sent> {
    const total: Sent = { sent: 0, released: 0 };
    while (signal?.aborted !== true) {
      const claimedAt = Date.now();
      const claimed = await this.deps.deliveries.claimDue(CLAIM_BATCH, this.#leaseSeconds);
      addTo(total, await this.attempt(claimed, claimedAt, signal));
      if (claimed.length < CLAIM_BATCH) break;
    }
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

  /**
   * Sends a claimed batch, SENT_TOGETHER side by side at a time, then records the outcomes together. A round
   * can take the sender's whole timeout, so none starts unless it would end well inside the claim's lease
   * (a quarter of it is kept for recording); what is left then, or when `signal` stops the pass, is let go.
   */
  private async attempt(claimed: ClaimedDelivery[], claimedAt: number, signal?: AbortSignal): Promise<Sent> {
    const leaseMs = this.#leaseSeconds * 1000;
    const lastStart = claimedAt + leaseMs - leaseMs / 4 - this.deps.sender.timeoutMs;
    const outcomes: { delivery: ClaimedDelivery; outcome: RecordedAttempt }[] = [];
    let next = 0;
    while (next < claimed.length && Date.now() <= lastStart && signal?.aborted !== true) {
      const round = claimed.slice(next, next + SENT_TOGETHER);
      next += round.length;
      // One deadline for the round: its attempts start together, so each still gets its whole timeout.
      const deadline = this.deps.sender.deadline();
      // Each attempt listens to it more than once (its wait, its request): not a leak.
      setMaxListeners(4 * SENT_TOGETHER, deadline);
      const sent = await Promise.all(
        round.map(async (delivery) => {
          const signed = this.signed(delivery);
          const outcome: AttemptOutcome =
            typeof signed === 'string' ? { error: signed } : await this.deps.sender.send(signed, deadline);
          return { delivery, outcome: this.recorded(delivery, outcome) };
        }),
      );
      outcomes.push(...sent);
    }
    for (const index of await this.deps.deliveries.record(outcomes)) {
      const { delivery, outcome } = outcomes[index] as (typeof outcomes)[number];
      this.deps.observer?.attempted(delivery.endpoint_id, outcome.outcome);
    }
    const unsent = claimed.slice(next);
    await this.deps.deliveries.release(unsent);
    return { sent: outcomes.length, released: unsent.length };
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

/** What a batch or a pass did: deliveries attempted, and claimed ones let go unattempted. */
export interface Sent {
  sent: number;
  released: number;
}

function addTo(total: Sent, batch: Sent): void {
  total.sent += batch.sent;
  total.released += batch.released;
}

const isSuccess = (status: number) => status >= 200 && status <= 299;

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return '?';
  }
}
