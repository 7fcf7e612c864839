import type { SmsRetryConfig } from '../config/sms.js';
import type { Executor } from '../db/transaction.js';
import { newId } from '../lib/ids.js';
import { maskPhone } from '../lib/phone-number.js';
import type { SmsOutboxRepo } from './outbox-repo.js';
import type { OutgoingSms, SmsLogger, SmsTransport } from './transport.js';

/** What the metrics count of the sends. */
export interface SmsSendObserver {
  sent(): void;
}

/** What SmsSender is built from. */
export interface SmsSenderDeps {
  outbox: SmsOutboxRepo;
  /** Undefined: SMS is not configured (the routes answer 503 before writing anything). */
  transport: SmsTransport | undefined;
  retry: SmsRetryConfig;
  /** Longest one send can take (SOLAPI_TIMEOUT): a claim is held a few times that. */
  sendTimeoutMs: number;
  logger: SmsLogger;
  observer?: SmsSendObserver | undefined;
}

function describe(error: unknown): string {
  const details = error as { errorCode?: unknown; status?: unknown; message?: unknown } | undefined;
  const parts = [details?.errorCode, details?.status, details?.message].filter(
    (part) => typeof part === 'string' || typeof part === 'number',
  );
  return (parts.join(' ') || 'unknown error').slice(0, 500);
}

/**
 * The SMS outbox, as the mailer is the mail's (mail/mailer.ts). A request writes its message with
 * `queueWithin` in the transaction of the code it carries, then `sendSoon` after commit sends it in the
 * background. Each row is claimed before it is sent (the writer's claim, or a retrier's `FOR UPDATE SKIP
 * LOCKED` one), so two senders never send one message; a failed send is retried with backoff until
 * `maxAttempts` or the code's end; a crash leaves the claim to run out and any instance's retrier sends it.
 */
export class SmsSender {
  readonly #inFlight = new Set<Promise<void>>();
  #timer: NodeJS.Timeout | undefined;
  #retrying: Promise<number> | undefined;
  #closed = false;

  constructor(private readonly deps: SmsSenderDeps) {}

  /** Whether a message can be sent at all (SOLAPI configured, or development's log). */
  get configured(): boolean {
    return this.deps.transport !== undefined;
  }

  /** Writes the message with `trx`, claimed for this instance's first send: hand it to `sendSoon` after commit. */
  async queueWithin(
    trx: Executor,
    message: { to: string; kind: string; text: string; expiresAt: Date },
  ): Promise<OutgoingSms> {
    const id = newId();
    await this.deps.outbox.with(trx).insertClaimed({ id, ...message, leaseMs: this.#leaseMs() });
    return { id, to: message.to, kind: message.kind, text: message.text };
  }

  /** Starts sending a committed message in the background; the caller does not wait. */
  sendSoon(message: OutgoingSms): void {
    if (this.#closed) return;
    this.#track(this.#send(message, 1).then(() => undefined));
  }

  /** Runs `work` once the answer is written (the loop's next check phase), tracked like a send. */
  afterAnswer(what: string, work: () => Promise<void>): void {
    if (this.#closed) return;
    this.#track(
      new Promise((resolve) => setImmediate(resolve)).then(work),
      `${what} failed after the answer`,
    );
  }

  /** Resolves when every background send started so far has finished (tests; shutdown). */
  async idle(): Promise<void> {
    while (this.#inFlight.size > 0) await Promise.allSettled([...this.#inFlight]);
  }

  /** One retry pass: gives up dead codes' messages, then sends the due ones, at most `limit`. */
  retryDue(limit = 100): Promise<number> {
    this.#retrying ??= this.#retryPass(limit).finally(() => {
      this.#retrying = undefined;
    });
    return this.#retrying;
  }

  /** Runs `retryDue` every `intervalMs` until `close`; the timer does not keep the process alive. */
  start(): void {
    if (this.#timer || this.#closed || !this.deps.transport) return;
    this.#timer = setInterval(() => {
      this.#track(
        this.retryDue().then(() => undefined),
        'sms retry pass failed',
      );
    }, this.deps.retry.intervalMs);
    this.#timer.unref();
  }

  async close(): Promise<void> {
    this.#closed = true;
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = undefined;
    await this.idle();
  }

  async #retryPass(limit: number): Promise<number> {
    if (!this.deps.transport) return 0;
    await this.deps.outbox.expire();
    let tried = 0;
    while (tried < limit && !this.#closed) {
      const row = await this.deps.outbox.claim(this.#leaseMs());
      if (!row) break;
      tried += 1;
      const { id, kind, to_number: to, body, attempts } = row;
      if (body === null) await this.#failed({ id, kind, to, text: '' }, attempts, new Error('body missing'));
      else await this.#send({ id, kind, to, text: body }, attempts);
    }
    return tried;
  }

  /** Sends a message this instance has claimed and records the outcome. */
  async #send(message: OutgoingSms, attempts: number): Promise<boolean> {
    const transport = this.deps.transport;
    if (!transport) return false;
    let sentBy: string;
    try {
      sentBy = (await transport.send(message)).id;
    } catch (error) {
      return this.#failed(message, attempts, error);
    }
    this.deps.observer?.sent();
    await this.#record(() => this.deps.outbox.markSent(message.id, sentBy));
    return true;
  }

  async #failed(message: OutgoingSms, attempts: number, error: unknown): Promise<false> {
    const reason = describe(error);
    const { maxAttempts, baseDelayMs } = this.deps.retry;
    const retryInMs = attempts >= maxAttempts ? undefined : baseDelayMs * 2 ** (attempts - 1);
    this.deps.logger.warn(
      {
        sms_id: message.id,
        kind: message.kind,
        to: maskPhone(message.to),
        attempts,
        retry_in_ms: retryInMs ?? null,
        err: reason,
      },
      retryInMs === undefined ? 'sms delivery failed; giving up' : 'sms delivery failed; will retry',
    );
    await this.#record(() => this.deps.outbox.markFailed(message.id, reason, retryInMs));
    return false;
  }

  /** An outcome that cannot be written leaves the claim to run out: the message is then tried again. */
  async #record(write: () => Promise<void>): Promise<void> {
    try {
      await write();
    } catch (error) {
      this.deps.logger.warn({ err: describe(error) }, 'sms outbox update failed');
    }
  }

  /** A send waits on the connection and one answer, each within the timeout: a claim outlasts both. */
  #leaseMs(): number {
    return Math.max(30_000, this.deps.sendTimeoutMs * 3);
  }

  #track(work: Promise<void>, failure = 'sms send failed'): void {
    const tracked = work.catch((error: unknown) => {
      this.deps.logger.warn({ err: describe(error) }, failure);
    });
    this.#inFlight.add(tracked);
    void tracked.finally(() => this.#inFlight.delete(tracked));
  }
}
