import type { MailRetryConfig } from '../config/mail.js';
import type { MailOutboxRow } from '../db/schema.js';
import type { Executor } from '../db/transaction.js';
import { newId } from '../lib/ids.js';
import type { Locale } from '../validation/messages.js';
import type { AddressCap } from './address-cap.js';
import type { MailToWrite, OutboxRepo } from './outbox-repo.js';
import { type MailContent, type MailKind, type MailValues, renderMail } from './templates.js';
import {
  describeError,
  type MailLogger,
  type MailTransport,
  maskAddress,
  type OutgoingMail,
} from './transport.js';

/**
 * A mail written to the outbox inside a transaction, claimed for its first send by this instance, which sends
 * it (from memory: no read-back) once that transaction has committed.
 */
export type QueuedMail = OutgoingMail;

/** A rendered mail: its outbox row, claimed for `leaseMs` (or delivered by its commit), and what `sendSoon` takes. */
export interface PreparedMail extends MailToWrite {
  queued: QueuedMail;
}

/** One send's worth of a claimed outbox row. */
type ClaimedMail = OutgoingMail & { attempts: number };
/** How long a sent mark waits for others to be written with it. */
const SENT_MARKS_EVERY_MS = 50;

/** What Mailer is built from. */
export interface MailerDeps {
  outbox: OutboxRepo;
  transport: MailTransport;
  retry: MailRetryConfig;
  /** Longest one send can take (the transport's timeouts): a claim is held this long plus a margin. */
  sendTimeoutMs: number;
  logger: MailLogger;
  /** The per-address cap (address-cap.ts); none: every mail goes. */
  cap?: AddressCap;
}

/**
 * The mail outbox. A request writes its mail with `queueWithin` in its own transaction (so a mail exists
 * exactly when what it announces committed), then calls `sendSoon` after commit: the send runs in the
 * background, never awaited by the request and never inside a transaction, so a slow or failing mail server
 * cannot fail or stall a committed request. A failed send is retried by `retryDue` — every `intervalMs` in
 * the background, or on demand — with exponential backoff, until `maxAttempts`. With a transport whose copy
 * is the row itself (log), the commit is the delivery: the row is written sent, and `sendSoon` only logs it.
 */
export class Mailer {
  readonly #inFlight = new Set<Promise<void>>();
  #timer: NodeJS.Timeout | undefined;
  #retrying: Promise<number> | undefined;
  #closed = false;
  /** Sent mails whose mark is not written yet (`#markSent`). */
  readonly #sentMarks: string[] = [];

  constructor(private readonly deps: MailerDeps) {}

  /**
   * Renders the mail and writes it to the outbox with `trx`: it commits, or not, with the caller's work. The
   * row is claimed for this instance's first send (`sendSoon`); should that never happen (the process dies,
   * or is closing), the claim runs out after the lease and the retrier of any instance sends it.
   */
  async queueWithin(
    trx: Executor,
    to: string,
    kind: MailKind,
    locale: Locale,
    values: MailValues,
  ): Promise<QueuedMail | undefined> {
    return this.writeWithin(trx, this.prepare(to, kind, locale, values));
  }

  /**
   * Writes a prepared mail to the outbox with `trx`; hand the result to `sendSoon` after commit. Undefined
   * when over its cap (address-cap.ts; `ownAccount`: an alert to that account's own address): folded instead.
   */
  async writeWithin(trx: Executor, mail: PreparedMail, ownAccount?: string): Promise<QueuedMail | undefined> {
    const foldUntil = await this.deps.cap?.admit(mail.row.to, mail.row.kind, ownAccount);
    if (foldUntil !== undefined) {
      await this.deps.outbox.with(trx).insertFold(mail.row, foldUntil);
      return undefined;
    }
    await this.deps.outbox.with(trx).insertClaimed(mail);
    return mail.queued;
  }

  /** What `queueWithin` writes, for a caller that writes the row itself (in one statement with others). */
  prepare(to: string, kind: MailKind, locale: Locale, values: MailValues): PreparedMail {
    return this.prepareRendered(to, kind, locale, renderMail(kind, locale, values));
  }

  /** `queueWithin` for a mail its caller rendered (security alerts); `ownAccount` as `writeWithin`'s. */
  async queueRenderedWithin(
    trx: Executor,
    to: string,
    kind: string,
    locale: Locale,
    content: MailContent,
    ownAccount?: string,
  ): Promise<QueuedMail | undefined> {
    return this.writeWithin(trx, this.prepareRendered(to, kind, locale, content), ownAccount);
  }

  private prepareRendered(to: string, kind: string, locale: Locale, content: MailContent): PreparedMail {
    const row = { id: newId(), to, kind, locale, ...content };
    const { id, subject, text, html } = row;
    // Where the row is the mail (the log transport) its commit delivers it: written sent, it needs no mark.
    const deliveredBy = this.deps.transport.rowIsTheMail ? this.deps.transport.name : null;
    return { row, leaseMs: this.#leaseMs(), deliveredBy, queued: { id, kind, to, subject, text, html } };
  }

  /**
   * Starts sending a committed mail in the background; the caller does not wait (see `idle`). A mail its
   * commit delivered (`prepare`) is only announced: the transport logs it, and nothing is written.
   */
  sendSoon(mail: QueuedMail | undefined): void {
    if (!mail || this.#closed) return;
    if (this.deps.transport.rowIsTheMail) {
      this.#track(
        this.deps.transport.send(mail).catch((error: unknown) => this.#announceFailed(mail, error)),
      );
      return;
    }
    this.#track(this.#send({ ...mail, attempts: 1 }).then(() => undefined));
  }

  /**
   * Runs `work` once the request's reply is written (the loop's next check phase), tracked like a send: work
   * whose cost must not show in the answer's time. A failure is logged by `what` (nothing the outbox retries).
   */
  afterAnswer(what: string, work: () => Promise<void>): void {
    if (this.#closed) return;
    const after = new Promise((resolve) => setImmediate(resolve)).then(work);
    this.#track(after, `${what} failed after the answer`);
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
          (error: unknown) => this.deps.logger.warn({ err: describeError(error) }, 'mail retry pass failed'),
        ),
      );
    }, this.deps.retry.intervalMs);
    this.#timer.unref();
  }

  /** Stops the retrier, waits for sends under way (each bounded by the transport's timeouts), closes. */
  async close(): Promise<void> {
    this.#closed = true;
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = undefined;
    await this.idle();
    await this.deps.transport.close();
  }

  async #retryPass(limit: number): Promise<number> {
    let tried = 0;
    while (tried < limit && !this.#closed) {
      const delivered = await this.#deliver();
      if (delivered === undefined) break;
      tried += 1;
    }
    await this.#writeSentMarks();
    return tried;
  }

  /** Claims the earliest due mail, sends it and records the outcome; undefined when none was due. */
  async #deliver(): Promise<boolean | undefined> {
    let row: MailOutboxRow | undefined;
    try {
      row = await this.deps.outbox.claim(this.#leaseMs());
    } catch (error) {
      // The database is down: the rows stay pending and a later pass finds them.
      this.deps.logger.warn({ err: describeError(error) }, 'mail outbox unavailable');
      return undefined;
    }
    if (!row) return undefined;
    const { id, kind, to_address: to, subject, text, html, attempts } = row;
    if (text === null || html === null)
      return this.#failed({ id, kind, to, attempts }, new Error('mail body missing'));
    return this.#send({ id, kind, to, subject, text, html, attempts });
  }

  /** Sends a mail this instance has claimed and records the outcome. */
  async #send(mail: ClaimedMail): Promise<boolean> {
    try {
      await this.deps.transport.send(mail);
    } catch (error) {
      return this.#failed(mail, error);
    }
    this.#markSent(mail.id);
    return true;
  }

  /** The announcement of a mail its commit delivered failed: nothing to retry, the row is the mail. */
  #announceFailed(mail: QueuedMail, error: unknown): void {
    this.deps.logger.warn(
      { mail_id: mail.id, kind: mail.kind, to: maskAddress(mail.to), err: describeError(error) },
      'mail written to the outbox but not announced',
    );
  }

  /** Due again after a backoff, or given up after `maxAttempts`; the reason is logged, never the body. */
  async #failed(mail: Pick<ClaimedMail, 'id' | 'kind' | 'to' | 'attempts'>, error: unknown): Promise<false> {
    const reason = describeError(error);
    const retryInMs =
      mail.attempts >= this.deps.retry.maxAttempts ? undefined : this.#backoffMs(mail.attempts);
    this.deps.logger.warn(
      {
        mail_id: mail.id,
        kind: mail.kind,
        to: maskAddress(mail.to),
        attempts: mail.attempts,
        retry_in_ms: retryInMs ?? null,
        err: reason,
      },
      retryInMs === undefined ? 'mail delivery failed; giving up' : 'mail delivery failed; will retry',
    );
    await this.#record(() => this.deps.outbox.markFailed(mail.id, reason, retryInMs));
    return false;
  }

  /**
   * Sent marks are written together, SENT_MARKS_EVERY_MS after the first of a batch: under a sign-up load
   * one UPDATE (and one commit) marks several mails instead of one each. A process that dies in that window
   * leaves its mails claimed; they are sent again when the lease runs out (at least once, as ever).
   */
  #markSent(id: string): void {
    this.#sentMarks.push(id);
    if (this.#sentMarks.length > 1) return;
    const flushed = new Promise<void>((resolve) => setTimeout(resolve, SENT_MARKS_EVERY_MS)).then(() =>
      this.#writeSentMarks(),
    );
    this.#track(flushed);
  }

  /** Writes the pending sent marks now (a retry pass ends with its marks written). */
  async #writeSentMarks(): Promise<void> {
    const ids = this.#sentMarks.splice(0);
    if (ids.length === 0) return;
    await this.#record(() =>
      this.deps.outbox.markSent(ids, this.deps.transport.name, this.deps.transport.rowIsTheMail),
    );
  }

  /** An outcome that cannot be written leaves the claim to expire: the mail is then tried again. */
  async #record(write: () => Promise<void>): Promise<void> {
    try {
      await write();
    } catch (error) {
      this.deps.logger.warn({ err: describeError(error) }, 'mail outbox update failed');
    }
  }

  /** After attempt n, wait base·2^(n-1), capped. */
  #backoffMs(attempts: number): number {
    return Math.min(this.deps.retry.maxDelayMs, this.deps.retry.baseDelayMs * 2 ** Math.max(0, attempts - 1));
  }

  /** A send can wait on the connection, the greeting and each reply: several timeouts, plus a margin. */
  #leaseMs(): number {
    return Math.max(60_000, this.deps.sendTimeoutMs * 10);
  }

  #track(work: Promise<void>, failure = 'mail send failed'): void {
    const tracked = work.catch((error: unknown) => {
      this.deps.logger.warn({ err: describeError(error) }, failure);
    });
    this.#inFlight.add(tracked);
    void tracked.finally(() => this.#inFlight.delete(tracked));
  }
}
