import type { DatabaseHandle } from '../db/client.js';
import type { HashingPool } from '../lib/hashing-pool.js';
import type { PasswordHasher } from '../lib/passwords.js';
import type { RateLimits } from '../limits/rate-counter.js';
import type { Mailer } from '../mail/mailer.js';
import type { AppMetrics } from '../metrics/metrics.js';
import type { CleanupFailureReporter, PictureRenderer } from '../modules/images/service.js';
import type { PushLogger } from '../push/transport.js';
import type { MediaStorage } from '../storage/media-storage.js';

/** What the services need besides the config: made by buildApp (or by a test) once per instance. */
export interface ServiceDeps {
  database: DatabaseHandle;
  storage: MediaStorage;
  reportCleanupFailure?: CleanupFailureReporter;
  limits: RateLimits;
  log: PushLogger;
  metrics: AppMetrics;
  mailer: Mailer;
  /** The config's argon2 hasher unless given (a test may hand in one that interleaves work with a verify). */
  hasher?: PasswordHasher;
  /** Decodes and re-encodes uploaded pictures (the instance's ImageRenderer, its own renderer processes). */
  imageRenderer: PictureRenderer;
  /** The processes the default hasher runs argon2 in; without one it hashes on this process's thread pool. */
  hashing?: HashingPool;
}
