import type { ClaimedDelivery, RecordedAttempt } from './deliveries-repo.js';

/** Attempts in flight to one endpoint from one instance: a slow receiver holds these, never another's. */
export const IN_FLIGHT_PER_ENDPOINT = 4;
/** Claimed deliveries one endpoint may hold waiting for a slot; past this its new deliveries are not claimed. */
export const WAITING_PER_ENDPOINT = 200;
/** An endpoint with every slot taken and no attempt ended for this long is stalled (a receiver that hangs). */
export const STALLED_MS = 1000;
/** Outcomes that end within this long of each other are recorded by one statement. */
export const RECORD_WITHIN_MS = 100;

/** What a claim's deliveries came to: attempted, and let go unattempted (due again for a later claim). */
export interface Sent {
  sent: number;
  released: number;
}

/** An attempt's outcome as recorded; `gone` when the receiver answered 410 (it wants no more). */
export type EndedAttempt = RecordedAttempt & { gone: boolean };

export interface AttemptPoolDeps {
  /** Signs and sends one delivery, never rejecting: its outcome. */
  attempt(delivery: ClaimedDelivery): Promise<EndedAttempt>;
  /**
   * Records outcomes in one statement (disabling the endpoints among them whose receiver answered 410); the
   * indexes of those recorded (still under their lease).
   */
  record(outcomes: { delivery: ClaimedDelivery; outcome: RecordedAttempt }[]): Promise<number[]>;
  /** Lets go of claimed deliveries never attempted, in one statement. */
  release(deliveries: ClaimedDelivery[]): Promise<void>;
  /** Told of each recorded outcome (the metrics). */
  recorded(delivery: ClaimedDelivery, outcome: RecordedAttempt): void;
  /** Told when an endpoint this pool had stopped claiming for can take claims again. */
  room(): void;
  warn(details: object, message: string): void;
  leaseMs: number;
  /** The longest one attempt takes. */
  timeoutMs: number;
}

/** A claimed delivery waiting for a slot of its endpoint, and the claim it belongs to. */
interface Held {
  delivery: ClaimedDelivery;
  /** The last moment it may start: its attempt then ends with a quarter of the lease to spare. */
  lastStart: number;
  claim: Claim;
}

interface Claim {
  open: number;
  sent: number;
  released: number;
  settle(sent: Sent): void;
}

/** One endpoint's share of the pool. */
interface Lane {
  inFlight: number;
  waiting: Held[];
  /** When an attempt last ended, or the lane last went from idle to busy. */
  progressAt: number;
  /** The receiver answered 410: nothing more starts until that is recorded (and the endpoint disabled). */
  gone: boolean;
  /** Reported busy to a claim: `room()` is told once it is not. */
  reportedBusy: boolean;
}

/**
 * The attempts of this instance, independent per endpoint: each endpoint has IN_FLIGHT_PER_ENDPOINT slots,
 * and an attempt starts as soon as its endpoint has a free one, so a receiver that hangs or fails holds up
 * only its own deliveries. What waits for a slot past its last safe start is let go (due again), never
 * sent late under a lease that may have run out. Each outcome is recorded as it ends: those ending within
 * RECORD_WITHIN_MS of each other (or all, once nothing is in flight) share one statement.
 */
export class AttemptPool {
  readonly #lanes = new Map<string, Lane>();
  #unrecorded: { held: Held; outcome: EndedAttempt }[] = [];
  #unreleased: Held[] = [];
  #timer: NodeJS.Timeout | undefined;
  #flushing: Promise<void> = Promise.resolve();
  #flushQueued = false;
  readonly #open = new Set<Promise<Sent>>();
  #closing = false;

  constructor(private readonly deps: AttemptPoolDeps) {}

  /** Takes a claim's deliveries, claimed at `claimedAt`; resolves once each is attempted and recorded, or let go. */
  add(claimed: readonly ClaimedDelivery[], claimedAt: number): Promise<Sent> {
    if (claimed.length === 0) return Promise.resolve({ sent: 0, released: 0 });
    const lastStart = claimedAt + (this.deps.leaseMs * 3) / 4 - this.deps.timeoutMs;
    let settle!: (sent: Sent) => void;
    const settled = new Promise<Sent>((resolve) => {
      settle = resolve;
    });
    const claim: Claim = { open: claimed.length, sent: 0, released: 0, settle };
    this.#open.add(settled);
    void settled.then(() => this.#open.delete(settled));
    const lanes = new Set<Lane>();
    for (const delivery of claimed) {
      const lane = this.#lane(delivery.endpoint_id);
      lane.waiting.push({ delivery, lastStart, claim });
      lanes.add(lane);
    }
    for (const lane of lanes) this.#pump(lane);
    return settled;
  }

  /**
   * The endpoints no claim should take deliveries for now: stalled (a receiver that does not answer), holding
   * WAITING_PER_ENDPOINT already, or just gone. Their deliveries wait in the queue, for this instance once
   * it has room, or for another.
   */
  busy(): string[] {
    const now = Date.now();
    const busy: string[] = [];
    for (const [endpointId, lane] of this.#lanes) {
      if (this.#isBusy(lane, now)) {
        lane.reportedBusy = true;
        busy.push(endpointId);
      }
    }
    return busy;
  }

  /** Resolves once everything taken so far is attempted and recorded, or let go. */
  async idle(): Promise<void> {
    while (this.#open.size > 0) await Promise.all(this.#open);
  }

  /** Starts nothing more: lets go of what waits, and resolves once what is in flight is recorded. */
  async close(): Promise<void> {
    this.#closing = true;
    for (const lane of this.#lanes.values()) this.#pump(lane);
    await this.idle();
  }

  #lane(endpointId: string): Lane {
    let lane = this.#lanes.get(endpointId);
    if (lane === undefined) {
      lane = { inFlight: 0, waiting: [], progressAt: Date.now(), gone: false, reportedBusy: false };
      this.#lanes.set(endpointId, lane);
    }
    return lane;
  }

  #isBusy(lane: Lane, now: number): boolean {
    const stalled = lane.inFlight >= IN_FLIGHT_PER_ENDPOINT && now - lane.progressAt >= STALLED_MS;
    return stalled || lane.gone || lane.waiting.length >= WAITING_PER_ENDPOINT;
  }

  /** Starts what the lane has slots for; lets go of what may no longer start. */
  #pump(lane: Lane): void {
    const now = Date.now();
    while (lane.waiting.length > 0) {
      if (lane.gone || this.#closing) {
        this.#unreleased.push(...lane.waiting.splice(0));
        break;
      }
      if (lane.inFlight >= IN_FLIGHT_PER_ENDPOINT) break;
      const held = lane.waiting.shift() as Held;
      if (now > held.lastStart) this.#unreleased.push(held);
      else this.#start(lane, held);
    }
    if (this.#unreleased.length > 0) this.#scheduleFlush();
    if (lane.reportedBusy && lane.waiting.length <= WAITING_PER_ENDPOINT / 2 && !this.#isBusy(lane, now)) {
      lane.reportedBusy = false;
      this.deps.room();
    }
  }

  #start(lane: Lane, held: Held): void {
    if (lane.inFlight === 0) lane.progressAt = Date.now();
    lane.inFlight++;
    void this.deps.attempt(held.delivery).then((outcome) => {
      lane.inFlight--;
      lane.progressAt = Date.now();
      if (outcome.gone) lane.gone = true;
      this.#unrecorded.push({ held, outcome });
      this.#scheduleFlush();
      this.#pump(lane);
    });
  }

  /** At once when nothing is in flight, else RECORD_WITHIN_MS after the first outcome not yet recorded. */
  #scheduleFlush(): void {
    const quiet = [...this.#lanes.values()].every((lane) => lane.inFlight === 0);
    if (quiet) {
      clearTimeout(this.#timer);
      this.#timer = undefined;
      this.#queueFlush();
    } else if (this.#timer === undefined) {
      this.#timer = setTimeout(() => {
        this.#timer = undefined;
        this.#queueFlush();
      }, RECORD_WITHIN_MS);
    }
  }

  /** Flushes one at a time: one that is asked for while another runs follows it, once. */
  #queueFlush(): void {
    if (this.#flushQueued) return;
    this.#flushQueued = true;
    this.#flushing = this.#flushing.then(() => {
      this.#flushQueued = false;
      return this.#flush();
    });
  }

  async #flush(): Promise<void> {
    const ended = this.#unrecorded.splice(0);
    if (ended.length > 0) {
      const outcomes = ended.map(({ held, outcome }) => ({ delivery: held.delivery, outcome }));
      try {
        for (const index of await this.deps.record(outcomes)) {
          const entry = outcomes[index] as (typeof outcomes)[number];
          this.deps.recorded(entry.delivery, entry.outcome);
        }
      } catch (error) {
        // Unrecorded, each stays claimed until its lease runs out, then is sent again: at least once.
        this.deps.warn({ err: error }, 'webhook attempts not recorded');
      }
    }
    const gone = new Set(
      ended.filter(({ outcome }) => outcome.gone).map(({ held }) => held.delivery.endpoint_id),
    );
    // Let go after the record that disabled a gone endpoint: what waited for it is parked, not due at once.
    const unreleased = this.#unreleased.splice(0);
    if (unreleased.length > 0) {
      try {
        await this.deps.release(unreleased.map((held) => held.delivery));
      } catch (error) {
        // Still claimed: due again when the lease runs out.
        this.deps.warn({ err: error }, 'webhook deliveries not let go');
      }
    }
    for (const endpointId of gone) {
      const lane = this.#lanes.get(endpointId);
      if (lane === undefined) continue;
      // Disabled now: claims skip it, and a claim made after it is enabled again is sent.
      lane.gone = false;
      this.#pump(lane);
    }
    for (const { held } of ended) this.#settle(held, 'sent');
    for (const held of unreleased) this.#settle(held, 'released');
    for (const [endpointId, lane] of this.#lanes) {
      if (lane.inFlight === 0 && lane.waiting.length === 0 && !lane.gone) this.#lanes.delete(endpointId);
    }
  }

  #settle(held: Held, as: 'sent' | 'released'): void {
    const claim = held.claim;
    claim[as]++;
    if (--claim.open === 0) claim.settle({ sent: claim.sent, released: claim.released });
  }
}
