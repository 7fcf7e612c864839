import type { Readable } from 'node:stream';
import type { DataExportRow, DataExportStatus } from '../../db/schema.js';
import { type Executor, writeTransaction } from '../../db/transaction.js';
import { NotFoundError } from '../../errors.js';
import type { AuthContext } from '../../http/auth-context.js';
import { newId } from '../../lib/ids.js';
import { iso } from '../../lib/time.js';
import type { RateCounter } from '../../limits/rate-counter.js';
import type { ExportStore } from '../../storage/export-store.js';
import type { Locale } from '../../validation/messages.js';
import type { ClientInfo } from '../client.js';
import type { Reauthentication, ReauthProof } from '../reauth/service.js';
import type { SecurityActivity } from '../security-activity/recorder.js';
import type { ExportListCursor, ExportListCursorCodec } from './cursor.js';
import type { DataExportJobs } from './jobs.js';
import type { ExportLinks } from './links.js';
import type { DataExportsRepo } from './repo.js';

export interface DataExportView {
  id: string;
  status: DataExportStatus;
  /** The download link while the export is ready; null otherwise. */
  download_url: string | null;
  expires_at: string | null;
}

/** A page of the user's exports, newest first; `next_cursor` is null on the last page. */
export interface DataExportPage {
  exports: DataExportView[];
  next_cursor: string | null;
}

export interface DataExportListRequest {
  limit: number;
  cursor: ExportListCursor | undefined;
}

/** A zip on its way to the client: streamed by the service, or fetched by the client from the store. */
export type ExportDownload =
  | { kind: 'stream'; stream: Readable; size: number; filename: string }
  | { kind: 'redirect'; url: string };

/**
 * How long a presigned link to the zip works: long enough to follow the redirect, short enough that a link
 * leaked from a browser history or a proxy log is dead. The download link itself is what lives until expiry.
 */
export const DIRECT_URL_SECONDS = 300;

const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** How many times a request tries to insert or find the pending export (one finishing meanwhile). */
const REQUEST_ATTEMPTS = 3;

/** What DataExports is built from. */
export interface DataExportsDeps {
  db: Executor;
  exports: DataExportsRepo;
  reauth: Reauthentication;
  jobs: DataExportJobs;
  store: ExportStore;
  links: ExportLinks;
  /** Exports started per user (RATE_LIMIT_DATA_EXPORT). */
  perUser: RateCounter;
  activity: SecurityActivity;
  cursors: ExportListCursorCodec;
}

/**
 * The right of access: a user asks for everything the service holds about them, and downloads it as one
 * zip through a link that works without the API token (it is mailed) until the export expires.
 */
export class DataExports {
  constructor(private readonly deps: DataExportsDeps) {}

  /**
   * Starts an export after re-authenticating (the export hands over everything: the session alone is what
   * a thief has). While one is pending the request answers that one and starts nothing, whoever races:
   * the partial unique index lets one insert through and the others find it. Only a new export counts on
   * the per-user limit, inside the transaction, so a 429 writes nothing.
   */
  async request(
    auth: AuthContext,
    proof: ReauthProof,
    locale: Locale,
    client: ClientInfo,
  ): Promise<DataExportView> {
    const { user } = auth;
    await this.deps.reauth.confirm(auth, proof, 'export');
    const { row, created } = await writeTransaction(this.deps.db, async (trx) => {
      const exports = this.deps.exports.with(trx);
      for (let attempt = 1; ; attempt++) {
        const inserted = await exports.insertPending({ id: newId(), userId: user.id, locale });
        if (inserted) {
          await this.deps.perUser.consume(`user:${user.id}`);
          // Logged once per export started: a request answered with the pending one started nothing.
          await this.deps.activity.record({ user, type: 'export_requested', client }, trx);
          return { row: inserted, created: true };
        }
        const pending = await exports.findPendingOf(user.id);
        // Finished between the two statements: try again (a new export, then).
        if (pending || attempt >= REQUEST_ATTEMPTS) {
          if (!pending) throw new Error('no pending export after a conflict');
          return { row: pending, created: false };
        }
      }
    });
    if (created) this.deps.jobs.kick();
    return this.view(row);
  }

  /** One of the user's own exports; any other id (another user's, unknown, malformed) is the same 404. */
  async status(auth: AuthContext, id: string): Promise<DataExportView> {
    const row = UUID_PATTERN.test(id) ? await this.deps.exports.find(id) : undefined;
    if (!row || row.user_id !== auth.user.id) throw new NotFoundError('export');
    return this.view(row);
  }

  /**
   * The user's own exports, newest first, a page at a time: expired and failed ones stay listed for the
   * account's life (one new export an hour adds up), so the list is keyset-paged. Reads one row more than the
   * page holds: that row only tells whether a page follows, so `next_cursor` is null exactly on the last page.
   */
  async list(auth: AuthContext, request: DataExportListRequest): Promise<DataExportPage> {
    const rows = await this.deps.exports.pageOf(auth.user.id, request.cursor?.id, request.limit + 1);
    const page = rows.slice(0, request.limit);
    const last = page.at(-1);
    const next = rows.length > request.limit && last ? await this.deps.cursors.encode({ id: last.id }) : null;
    return { exports: await Promise.all(page.map((row) => this.view(row))), next_cursor: next };
  }

  /**
   * The zip behind a download link. A wrong token, another export's token, an export not ready or past its
   * time, and an unknown id are all the same 404: the answer never says which ids exist. On object storage
   * the answer is a presigned URL of the zip (the bytes never pass through the service); on local disk the
   * zip itself.
   */
  async download(id: string, token: string | undefined): Promise<ExportDownload> {
    const row = UUID_PATTERN.test(id) && token ? await this.deps.exports.find(id) : undefined;
    if (!row || token === undefined || !(await this.deps.links.matches(row.id, token))) {
      throw new NotFoundError('export');
    }
    if (!isDownloadable(row) || row.file_key === null || row.expires_at === null) {
      throw new NotFoundError('export');
    }
    const filename = `accounts-export-${row.id}.zip`;
    // Never beyond the export's own expiry (at least a second: a presigned URL needs one).
    const secondsLeft = Math.floor((row.expires_at.getTime() - Date.now()) / 1000);
    const url = await this.deps.store.directUrl(
      row.file_key,
      filename,
      Math.max(1, Math.min(DIRECT_URL_SECONDS, secondsLeft)),
    );
    if (url) return { kind: 'redirect', url };
    const file = await this.deps.store.open(row.file_key);
    if (!file) throw new NotFoundError('export');
    return { kind: 'stream', ...file, filename };
  }

  private async view(row: DataExportRow): Promise<DataExportView> {
    const downloadable = isDownloadable(row);
    return {
      id: row.id,
      // Past its time but not swept yet: already expired for the client (and refused by the download).
      status: row.status === 'ready' && !downloadable ? 'expired' : row.status,
      download_url: downloadable ? await this.deps.links.url(row.id) : null,
      expires_at: row.expires_at === null ? null : iso(row.expires_at),
    };
  }
}

function isDownloadable(row: DataExportRow): boolean {
  return row.status === 'ready' && row.expires_at !== null && row.expires_at.getTime() > Date.now();
}
