import type { GuardianIdentityCheck } from '../account/guardian/identity.js';
import type { Config } from '../config.js';
import type { DatabaseHandle } from '../db/client.js';
import { ReadRouting, type RoutedReads, type WriteNotes } from '../db/read-routing.js';
import type { HashingPool } from '../lib/hashing-pool.js';
import type { Tracing } from '../lib/tracing.js';
import { openRateLimits } from '../limits/open-rate-limits.js';
import { type RateLimits, unlimitedRateLimits } from '../limits/rate-counter.js';
import { AddressCap } from '../mail/address-cap.js';
import { Mailer } from '../mail/mailer.js';
import { OutboxRepo } from '../mail/outbox-repo.js';
import { createMailTransport } from '../mail/transport.js';
import type { AppMetrics } from '../metrics/metrics.js';
import type { CleanupFailureReporter, PictureRenderer } from '../modules/images/service.js';
import { NotificationOutboxRepo } from '../modules/notifications/repo.js';
import { createPushTransport } from '../push/create-transport.js';
import type { PushLogger } from '../push/transport.js';
import { SmsOutboxRepo } from '../sms/outbox-repo.js';
import { SmsSender } from '../sms/sender.js';
import { createSmsTransport } from '../sms/transport.js';
import { createStorage } from '../storage/create-storage.js';
import { S3Storage } from '../storage/s3-storage.js';
import type { ServiceDeps } from './deps.js';

/**
 * Whom the infrastructure serves. `server`: the configured rate limits (Redis when REDIS_URL is set), the
 * per-address mail cap and the mail retrier, reads routed to healthy replicas. `command` (an operator
 * command): no limits (it has no clients to throttle, and needs no Redis), mail sent as written and retried
 * by the servers, every read on the primary (operators read what they just changed).
 */
export type InfrastructureRole = 'server' | 'command';

/** What the infrastructure is built on, and what its caller made for it. */
export interface InfrastructureOptions {
  /** The caller's to open and to close (after `close`). */
  database: DatabaseHandle;
  role: InfrastructureRole;
  /** Where the adapters log: the server's logger; a command's says only what went wrong. */
  log: PushLogger;
  /** The server's metrics (its request hooks and /metrics read them too); a command has none. */
  metrics?: AppMetrics | undefined;
  reportCleanupFailure?: CleanupFailureReporter | undefined;
  /** The server's pools (it closes them); a command has none. */
  imageRenderer?: PictureRenderer | undefined;
  hashing?: HashingPool | undefined;
  /** A test's stand-in for a guardian's identity check (services/guardian.ts). */
  guardianIdentity?: GuardianIdentityCheck | undefined;
  /** The server's tracing; a command's is off. */
  tracing?: Tracing | undefined;
  /** A test's clock for the staff console (services/staff.ts). */
  now?: (() => number) | undefined;
}

/** What every entry point builds its services on (buildServices), and closes when it is done. */
export interface Infrastructure extends ServiceDeps {
  reads: RoutedReads & WriteNotes;
  limits: RateLimits;
  /** Sends the mail still under way, then closes the mailer, the limit store and the storage's sockets. */
  close(): Promise<void>;
}

/**
 * The adapters the server, the operator commands and the tests all wire: storage, the limit store, the
 * mailer over its outbox, the push transport and where reads go. Nothing here starts a process or a thread.
 */
export async function buildInfrastructure(
  config: Config,
  options: InfrastructureOptions,
): Promise<Infrastructure> {
  const { database, log } = options;
  const server = options.role === 'server';
  const storage = createStorage(config.media);
  // Built once: every request of this instance shares the counters (and, with Redis, every instance does).
  const limits = server
    ? openRateLimits(config.rateLimits, config.redisUrl, log, options.metrics?.rateLimitObserver)
    : unlimitedRateLimits();
  // Mail goes out after commit; the server retries it from the outbox in the background, and caps how many
  // go to one address (a command's mail is an operator's, sent as written).
  const mailer = new Mailer({
    outbox: new OutboxRepo(database.db),
    transport: createMailTransport(config.mail, log, options.tracing),
    retry: config.mail.retry,
    sendTimeoutMs: config.mail.smtp?.timeoutMs ?? 0,
    logger: log,
    cap: server ? new AddressCap({ address: limits.mailAddress, alerts: limits.mailAlerts }) : undefined,
  });
  // Texts go out after commit like mail, from their own outbox, retried by the server in the background.
  const sms = new SmsSender({
    outbox: new SmsOutboxRepo(database.db),
    transport: createSmsTransport(config.sms, log, options.tracing),
    retry: config.sms.retry,
    sendTimeoutMs: config.sms.solapi?.timeoutMs ?? 0,
    logger: log,
    observer: options.metrics?.sms,
  });
  const close = async () => {
    await mailer.close();
    await sms.close();
    await limits.close();
    // The S3 client keeps sockets open; local storage has nothing to close.
    if (storage instanceof S3Storage) storage.close();
  };
  try {
    await limits.ready();
  } catch (error) {
    await close();
    throw error;
  }
  if (server) {
    mailer.start();
    sms.start();
  }
  return {
    database,
    reads: new ReadRouting(database.db, server ? database.replicas : undefined),
    storage,
    limits,
    mailer,
    sms,
    push: createPushTransport(config.push, new NotificationOutboxRepo(database.db), log),
    log,
    metrics: options.metrics,
    reportCleanupFailure: options.reportCleanupFailure,
    imageRenderer: options.imageRenderer,
    hashing: options.hashing,
    guardianIdentity: options.guardianIdentity,
    tracing: options.tracing,
    now: options.now,
    close,
  };
}
