import type { GuardianIdentityCheck } from '../account/guardian/identity.js';
import type { Config } from '../config.js';
import type { DatabaseHandle } from '../db/client.js';
import type { RoutedReads } from '../db/read-routing.js';
import type { HashingPool } from '../lib/hashing-pool.js';
import type { PasswordHasher } from '../lib/passwords.js';
import type { Tracing } from '../lib/tracing.js';
import type { RateLimits } from '../limits/rate-counter.js';
import type { Mailer } from '../mail/mailer.js';
import type { AppMetrics } from '../metrics/metrics.js';
import type { CleanupFailureReporter, PictureRenderer } from '../modules/images/service.js';
import type { PushLogger, PushTransport } from '../push/transport.js';
import type { SmsSender } from '../sms/sender.js';
import type { MediaStorage } from '../storage/media-storage.js';

/**
 * What the services need besides the config: made once per instance by buildInfrastructure
 * (services/infrastructure.ts) for the server, an operator command and the tests alike, and handed to every
 * factory of this folder.
 */
export interface ServiceDeps {
  database: DatabaseHandle;
  /** Where the public reads run: the server's routing over its replicas; a command's, always the primary. */
  reads: RoutedReads;
  storage: MediaStorage;
  /** Where files that could not be removed are told (the server logs them; a command prints them). */
  reportCleanupFailure?: CleanupFailureReporter | undefined;
  /** The counters (a command's are unlimited: it has no clients to throttle). */
  limits: RateLimits;
  log: PushLogger;
  /** What observes hashing and provider verifications; a command has none. */
  metrics?: AppMetrics | undefined;
  mailer: Mailer;
  /** The SMS outbox's sender (SOLAPI, development's log, or none: the phone routes then answer 503). */
  sms: SmsSender;
  /** The push transport PUSH_TRANSPORT names (`log` writes the notification outbox). */
  push: PushTransport;
  /** The config's argon2 hasher unless given (a test may hand in one that interleaves work with a verify). */
  hasher?: PasswordHasher | undefined;
  /**
   * Decodes and re-encodes uploaded pictures (the instance's ImageRenderer, its own renderer processes); a
   * command has none: it removes pictures but never stores one.
   */
  imageRenderer?: PictureRenderer | undefined;
  /** The processes the default hasher runs argon2 in; without one it hashes on this process's thread pool. */
  hashing?: HashingPool | undefined;
  /**
   * How a child's guardian proves who they are (carrier identity verification); unset, PortOne's where it is
   * configured, else the mailed link alone is the method (docs/identity.md).
   */
  guardianIdentity?: GuardianIdentityCheck | undefined;
  /** Spans of what the services send (lib/tracing.ts: the seam); off when absent. */
  tracing?: Tracing | undefined;
  /** The staff console's clock: Date.now unless a test hands in one it moves (idle timeout, lockout). */
  now?: (() => number) | undefined;
}

/** What every factory of this folder is given, beside the parts it names: the config and the deps. */
export interface FactoryArgs {
  config: Config;
  deps: ServiceDeps;
}
