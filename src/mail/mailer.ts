import type { MailRetryConfig } from '../config/mail.js';
import type { MailOutboxRow } from '../db/schema.js';
import type { Executor } from '../db/transaction.js';
import { newId } from '../lib/ids.js';
import type { Locale } from '../validation/messages.js';
import type { OutboxRepo } from './outbox-repo.js';
import { type MailKind, type MailValues, renderMail } from './templates.js';
import { type MailLogger, type MailTransport, maskAddress } from './transport.js';

/** A mail written to the outbox inside a transaction, to be sent once that transaction has committed. */
export interface QueuedMail {
  id: string;
}

/** What a failed send records: the SMTP reply or socket error, never the message. */
function describeError(error: unknown): string {
  const details = error as { code?: unknown; responseCode?: unknown; message?: unknown } | undefined;
  const parts = [details?.code, details?.responseCode, details?.message].filter(
    (part) => typeof part === 'string' || typeof part === 'number',
  );
  return (parts.join(' ') || 'unknown error').slice(0, 500);
}

/**
 * The mail outbox. A request writes its mail with `queueWithin` in its own transaction (so a mail exists
 * exactly when what it announces committed), then calls `sendSoon` after commit: the send runs in the
 * background, never awaited by the request and never inside a transaction, so a slow or failing mail server
 * cannot fail or stall a committed request. A failed send is retried by `retryDue` — every `intervalMs` in
 * the background, or on demand — with exponential backoff, until `maxAttempts`.
 */
export class Mailer {
  readonly #inFlight = new Set<Promise<void>>();
  #timer: NodeJS.Timeout | undefined;
  #retrying: Promise<number> | undefined;
  #closed = false;

  constructor(
    private readonly outbox: OutboxRepo,
    private readonly transport: MailTransport,
    private readonly retry: MailRetryConfig,
    /** Longest one send can take (the transport's timeouts): a claim is held this long plus a margin. */
    private readonly sendTimeoutMs: number,
    private readonly logger: MailLogger,
  ) {}

  get transportName(): string {
    return this.transport.name;
  }

  /** Renders the mail and writes it to the outbox with `trx`: it commits, or not, with the caller's work. */
  async queueWithin(
    trx: Executor,
    to: string,
    kind: MailKind,
    locale: Locale,
    values: MailValues,
  ): Promise<QueuedMail> {
    const id = newId();
    await this.outbox.with(trx).insert({ id, to, kind, locale, ...renderMail(kind, locale, values) });
    return { id };
  }

  /** Starts sending a committed mail in the background; the caller does not wait (see `idle`). */
  sendSoon(mail: QueuedMail | undefined): void {
    if (!mail || this.#closed) return;
    this.#track(this.#deliver(mail.id).then(() => undefined));
  }

  /** Resolves when every background send started so far has finished (tests; shutdown). */
  async idle(): Promise<void> {
    while (this.#inFlight.size > 0) await Promise.allSettled([...this.#inFlight]);
  }

  /**
   * One retry pass: sends every due mail, one after another, until none is due or `limit` were tried.
   * Returns how many were tried. Passes never overlap: a pass asked for during one joins it.
   */
  retryDue(limit = 100): Promise<number> {
    this.#retrying ??= this.#retryPass(limit).finally(() => {
      this.#retrying = undefined;
    });
    return this.#retrying;
  }

  /** Runs `retryDue` every `intervalMs` until `close`. The timer does not keep the process alive. */
  start(): void {
    if (this.#timer || this.#closed) return;
    this.#timer = setInterval(() => {
      this.#track(
        this.retryDue().then(
          () => undefined,
          (error: unknown) => this.logger.warn({ err: describeError(error) }, 'mail retry pass failed'),
        ),
      );
    }, this.retry.intervalMs);
    this.#timer.unref();
  }

  /** Stops the retrier, waits for sends under way (each bounded by the transport's timeouts), closes. */
  async close(): Promise<void> {
    this.#closed = true;
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = undefined;
    await this.idle();
    await this.transport.close();
  }

  async #retryPass(limit: number): Promise<number> {
    let tried = 0;
    while (tried < limit && !this.#closed) {
      const delivered = await this.#deliver();
      if (delivered === undefined) break;
      tried += 1;
    }
    return tried;
  }

  /** Claims one due mail (this one, or any), sends it and records the outcome; undefined when none was due. */
  async #deliver(id?: string): Promise<boolean | undefined> {
    let row: MailOutboxRow | undefined;
    try {
      row = await this.outbox.claim(this.#leaseMs(), id);
    } catch (error) {
      // The database is down: the row stays pending and the retrier finds it later.
      this.logger.warn({ mail_id: id, err: describeError(error) }, 'mail outbox unavailable');
      return id === undefined ? undefined : false;
    }
    if (!row) return undefined;
    try {
      if (row.text === null || row.html === null) throw new Error('mail body missing');
      await this.transport.send({
        id: row.id,
        kind: row.kind,
        to: row.to_address,
        subject: row.subject,
        text: row.text,
        html: row.html,
      });
    } catch (error) {
      const reason = describeError(error);
      const retryInMs = row.attempts >= this.retry.maxAttempts ? undefined : this.#backoffMs(row.attempts);
      this.logger.warn(
        {
          mail_id: row.id,
          kind: row.kind,
          to: maskAddress(row.to_address),
          attempts: row.attempts,
          retry_in_ms: retryInMs ?? null,
          err: reason,
        },
        retryInMs === undefined ? 'mail delivery failed; giving up' : 'mail delivery failed; will retry',
      );
      await this.#record(() => this.outbox.markFailed(row.id, reason, retryInMs));
      return false;
    }
    await this.#record(() => this.outbox.markSent(row.id, this.transport.name, this.transport.keepsBody));
    return true;
  }

  /** An outcome that cannot be written leaves the claim to expire: the mail is then tried again. */
  async #record(write: () => Promise<void>): Promise<void> {
    try {
      await write();
    } catch (error) {
      this.logger.warn({ err: describeError(error) }, 'mail outbox update failed');
    }
  }

  /** After attempt n, wait base·2^(n-1), capped. */
  #backoffMs(attempts: number): number {
    return Math.min(this.retry.maxDelayMs, this.retry.baseDelayMs * 2 ** Math.max(0, attempts - 1));
  }

  /** A send can wait on the connection, the greeting and each reply: several timeouts, plus a margin. */
  #leaseMs(): number {
    return Math.max(60_000, this.sendTimeoutMs * 10);
  }

  #track(work: Promise<void>): void {
    const tracked = work.catch((error: unknown) => {
      this.logger.warn({ err: describeError(error) }, 'mail send failed');
    });
    this.#inFlight.add(tracked);
    void tracked.finally(() => this.#inFlight.delete(tracked));
  }
}
