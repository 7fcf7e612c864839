import { randomBytes } from 'node:crypto';
import { mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import type { DataExportRow, UserRow } from '../../db/schema.js';
import { type Executor, writeTransaction } from '../../db/transaction.js';
import type { Mailer } from '../../mail/mailer.js';
import type { ExportStore } from '../../storage/export-store.js';
import { type Locale, preferredLocale } from '../../validation/messages.js';
import { type ArchiveSources, writeArchive } from './archive.js';
import type { ExportLinks } from './links.js';
import type { DataExportsRepo } from './repo.js';

export interface DataExportJobSettings {
  /** How long a ready export stays downloadable. */
  ttlMs: number;
  /** How often the background pass runs (builds left by a crash, expiries). */
  jobIntervalMs: number;
  /** Where zips are built (and, on local disk, kept). */
  dir: string;
}

export interface JobLogger {
  info(details: object, message: string): void;
  warn(details: object, message: string): void;
}

/** A build holds its claim this long; one still running after it may be built again (the first to finish wins). */
const LEASE_SECONDS = 15 * 60;
/** Builds of one export, the first included, before it is marked failed. */
const MAX_ATTEMPTS = 5;
/** Expired exports handled per statement. */
const EXPIRY_BATCH = 100;

/** What DataExportJobs is built from. */
export interface DataExportJobsDeps {
  db: Executor;
  exports: DataExportsRepo;
  findUser: (id: string) => Promise<UserRow | undefined>;
  sources: ArchiveSources;
  store: ExportStore;
  links: ExportLinks;
  mailer: Mailer;
  settings: DataExportJobSettings;
  log: JobLogger;
}

/**
 * Builds exports in the server, never in the request: `kick` after a request commits, and every
 * `intervalMs` a pass that claims what is due (`FOR UPDATE SKIP LOCKED`: exports a crashed instance left
 * pending, or whose build failed and waits for its retry) and expires what is past its time (zip removed
 * first, then the row marked, so no zip outlives its export). One build at a time per instance.
 */
export class DataExportJobs {
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<void> | undefined;
  #again = false;
  #closed = false;

  constructor(private readonly deps: DataExportJobsDeps) {}

  /** Runs a pass soon, in the background (joining one under way: it runs again once that ends). */
  kick(): void {
    if (this.#closed) return;
    if (this.#running) {
      this.#again = true;
      return;
    }
    this.#running = this.#passes().finally(() => {
      this.#running = undefined;
    });
  }

  /** Resolves when no pass is running (tests; shutdown). */
  async idle(): Promise<void> {
    while (this.#running) await this.#running;
  }

  start(): void {
    if (this.#timer || this.#closed) return;
    this.kick();
    this.#timer = setInterval(() => this.kick(), this.deps.settings.jobIntervalMs);
    this.#timer.unref();
  }

  /** Stops the timer and waits for the pass under way, so nothing runs on after the database closes. */
  async close(): Promise<void> {
    this.#closed = true;
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = undefined;
    await this.idle();
  }

  async #passes(): Promise<void> {
    do {
      this.#again = false;
      try {
        await this.buildDue();
        await this.expireDue();
      } catch (error) {
        // The database is down, say: what is due stays due, and the next pass finds it.
        this.deps.log.warn({ err: error }, 'data export pass failed');
      }
    } while (this.#again && !this.#closed);
  }

  /** Builds every due export, one after another; returns how many were claimed. */
  async buildDue(): Promise<number> {
    let claimed = 0;
    while (!this.#closed) {
      const row = await this.deps.exports.claimDue(LEASE_SECONDS);
      if (!row) break;
      claimed += 1;
      await this.#build(row);
    }
    return claimed;
  }

  /** Removes the zips of exports past their time and marks them expired; returns how many. */
  async expireDue(): Promise<number> {
    let expired = 0;
    for (;;) {
      const due = await this.deps.exports.dueToExpire(EXPIRY_BATCH);
      if (due.length === 0) return expired;
      await this.deps.store.delete(due.map((entry) => entry.file_key));
      await this.deps.exports.markExpired(due.map((entry) => entry.id));
      expired += due.length;
    }
  }

  async #build(row: DataExportRow): Promise<void> {
    const user = await this.deps.findUser(row.user_id);
    // The account was erased meanwhile: its exports went with it.
    if (!user) return;
    const key = `${row.id}-${randomBytes(16).toString('base64url')}.zip`;
    const partial = path.join(this.deps.settings.dir, `${key}.partial`);
    let stored = false;
    try {
      await mkdir(this.deps.settings.dir, { recursive: true });
      await writeArchive(this.deps.sources, user, partial);
      await this.deps.store.putFile(key, partial);
      stored = true;
      // Made before the transaction: nothing but the transaction may wait on the database inside it.
      const link = await this.deps.links.url(row.id);
      const mail = await writeTransaction(this.deps.db, async (trx) => {
        const ready = await this.deps.exports
          .with(trx)
          .markReady(row.id, key, this.deps.settings.ttlMs / 1000);
        if (!ready) return undefined;
        return this.deps.mailer.queueWithin(trx, user.email, 'data_export_ready', localeOf(row), {
          username: user.username,
          link,
          validForMs: this.deps.settings.ttlMs,
        });
      });
      if (!mail) {
        // Built by another instance meanwhile, or erased with the account: this zip is nobody's.
        await this.deps.store.delete([key]);
        return;
      }
      this.deps.mailer.sendSoon(mail);
      this.deps.log.info({ export_id: row.id, attempts: row.attempts }, 'data export ready');
    } catch (error) {
      await rm(partial, { force: true }).catch(() => {});
      if (stored) await this.deps.store.delete([key]).catch(() => {});
      await this.#failed(row, error);
    }
  }

  async #failed(row: DataExportRow, error: unknown): Promise<void> {
    const reason = (error instanceof Error ? error.message : String(error)).slice(0, 500);
    const retryInSeconds = row.attempts >= MAX_ATTEMPTS ? undefined : 60 * 2 ** (row.attempts - 1);
    this.deps.log.warn(
      { export_id: row.id, attempts: row.attempts, retry_in_s: retryInSeconds ?? null, err: reason },
      retryInSeconds === undefined ? 'data export failed; giving up' : 'data export failed; will retry',
    );
    await this.deps.exports.markAttemptFailed(row.id, reason, retryInSeconds).catch(() => {});
  }
}

/** The stored language of the request (written by the service from Accept-Language). */
function localeOf(row: DataExportRow): Locale {
  return preferredLocale(row.locale);
}
