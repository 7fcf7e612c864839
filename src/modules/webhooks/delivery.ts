import type { WebhookAttemptOutcome } from '../../db/schema-events.js';
import type { Tracing } from '../../lib/tracing.js';
import { AttemptPool, type EndedAttempt, type Sent } from './attempt-pool.js';
import type { ClaimedDelivery, WebhookDeliveriesRepo, WebhookWork } from './deliveries-repo.js';
import type { WebhookEndpointsRepo } from './endpoints-repo.js';
import { OpenedSecrets, type WebhookSecrets } from './secrets.js';
import type { AttemptOutcome, SignedDelivery } from './sender.js';
import { sendTraced } from './traced-delivery.js';

/**
 * Events fanned out per statement: their deliveries are all claimed for the pass that fans them out. Under
 * load, a pass's deliveries are then one insert, one delete and their attempts: no second claim, and few
 * statements for many deliveries.
 */
const DISPATCH_BATCH = 100;
/** Due deliveries claimed per statement (retries, replays, deliveries let go or whose lease ran out). */
const CLAIM_BATCH = 100;
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
    send(delivery: SignedDelivery): Promise<AttemptOutcome>;
    /** The longest an attempt takes: how long before its lease runs out an attempt may still start. */
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
  /** A `webhook deliver` span per attempt, a child of the event's request (lib/tracing.ts); off when absent. */
  tracing?: Tracing | undefined;
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
  readonly #pool: AttemptPool;
  readonly #roomListeners = new Set<() => void>();

  constructor(private readonly deps: WebhookDeliveryDeps) {
    this.#leaseSeconds = deps.leaseSeconds ?? LEASE_SECONDS;
    this.#pool = new AttemptPool({
      attempt: (delivery) => this.attemptOne(delivery),
      record: (outcomes) => deps.deliveries.record(outcomes),
      release: (deliveries) => deps.deliveries.release(deliveries),
      recorded: (delivery, outcome) => {
        deps.observer?.attempted(delivery.endpoint_id, outcome.outcome);
        if (outcome.gone === true) {
          // The host, not the URL: a receiver may carry a token in its path or query.
          deps.log.warn(
            { endpoint: delivery.endpoint_id, host: hostOf(delivery.url) },
            'webhook endpoint disabled: receiver answered 410',
          );
        }
      },
      room: () => {
        for (const listener of this.#roomListeners) listener();
      },
      warn: (details, message) => deps.log.warn(details, message),
      leaseMs: this.#leaseSeconds * 1000,
      timeoutMs: deps.sender.timeoutMs,
    });
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
   * Fans out every event not yet fanned out and sends the deliveries it claims on the way; resolves once they
   * are all attempted and recorded, or let go (due again for `deliver`: the claim's time ran short, or the
   * pool closed).
   */
  async dispatch(signal?: AbortSignal): Promise<Sent> {
    return (await this.startDispatch(signal)).settled;
  }

  /** Sends the due deliveries, a claim at a time, until none is due; resolves as `dispatch` does. */
  async deliver(signal?: AbortSignal): Promise<Sent> {
    return (await this.startDelivery(signal)).settled;
  }

  /**
   * `dispatch` for the delivery loop: resolves once the claims are made and their attempts started, so that
   * the next pass never waits for a slow receiver; `settled` is what `dispatch` resolves to.
   */
  async startDispatch(signal?: AbortSignal): Promise<{ settled: Promise<Sent> }> {
    const claims: Promise<Sent>[] = [];
    let events: number;
    do {
      const claimedAt = Date.now();
      const fanned = await this.deps.deliveries.fanOut(DISPATCH_BATCH, this.#leaseSeconds, this.#pool.busy());
      events = fanned.events;
      claims.push(this.#pool.add(fanned.claimed, claimedAt));
    } while (events === DISPATCH_BATCH && signal?.aborted !== true);
    return { settled: total(claims) };
  }

  /** `deliver` for the delivery loop, as `startDispatch` is `dispatch`. */
  async startDelivery(signal?: AbortSignal): Promise<{ settled: Promise<Sent> }> {
    const claims: Promise<Sent>[] = [];
    while (signal?.aborted !== true) {
      const claimedAt = Date.now();
      const claimed = await this.deps.deliveries.claimDue(CLAIM_BATCH, this.#leaseSeconds, this.#pool.busy());
      claims.push(this.#pool.add(claimed, claimedAt));
      if (claimed.length < CLAIM_BATCH) break;
    }
    return { settled: total(claims) };
  }

  /**
   * Tells `listener` when an endpoint this instance had stopped claiming for (stalled, or holding enough) can
   * take claims again; returns what removes it.
   */
  onRoom(listener: () => void): () => void {
    this.#roomListeners.add(listener);
    return () => this.#roomListeners.delete(listener);
  }

  /** Resolves once every attempt started so far is recorded, and what waited is let go. */
  idle(): Promise<void> {
    return this.#pool.idle();
  }

  /**
   * Starts no more attempts: what waits for a slot is let go, what is in flight is recorded as it ends; then
   * lets go of what the sender keeps open (its kept-alive connections).
   */
  async close(): Promise<void> {
    await this.#pool.close();
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

  /** One attempt: signed and sent (never rejecting), and its outcome as it will be recorded. */
  private async attemptOne(delivery: ClaimedDelivery): Promise<EndedAttempt> {
    const signed = this.signed(delivery);
    let outcome: AttemptOutcome;
    try {
      outcome =
        typeof signed === 'string'
          ? { error: signed }
          : await sendTraced(this.deps.sender, this.deps.tracing, delivery, signed);
    } catch (error) {
      outcome = { error: (error as Error).message };
    }
    return this.recorded(delivery, outcome);
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

  private recorded(delivery: ClaimedDelivery, outcome: AttemptOutcome): EndedAttempt {
    const statusCode = outcome.statusCode ?? null;
    const error =
      outcome.error ?? (statusCode !== null && !isSuccess(statusCode) ? `HTTP ${statusCode}` : null);
    if (statusCode !== null && isSuccess(statusCode)) {
      return { statusCode, error: null, outcome: 'delivered', retryInSeconds: 0, gone: false };
    }
    // 410 Gone: the receiver wants no more (Standard Webhooks). Its endpoint is disabled as this is recorded,
    // and the delivery waits with the others, parked, should an operator enable it again.
    const gone = statusCode === 410;
    // The attempt just made is number attempts + 1; the schedule holds the wait after each failed one.
    const wait = this.deps.retryScheduleMs[delivery.attempts];
    if (wait === undefined) return { statusCode, error, outcome: 'failed', retryInSeconds: 0, gone };
    return { statusCode, error, outcome: 'retry', retryInSeconds: wait / 1000, gone };
  }
}

export type { Sent } from './attempt-pool.js';

/** What several claims came to, once all are settled. */
async function total(claims: Promise<Sent>[]): Promise<Sent> {
  const sent: Sent = { sent: 0, released: 0 };
  for (const claim of await Promise.all(claims)) {
    sent.sent += claim.sent;
    sent.released += claim.released;
  }
  return sent;
}

const isSuccess = (status: number) => status >= 200 && status <= 299;

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return '?';
  }
}
