import pino from 'pino';
import { openRateLimits } from '../../src/limits/open-rate-limits.js';
import { AppMetrics } from '../../src/metrics/metrics.js';
import { buildOperatorServices } from '../../src/services/operator.js';
import { buildServices, type ServiceDeps, type Services } from '../../src/services.js';
import { createStorage } from '../../src/storage/create-storage.js';
import type { TestApp } from './app.js';

/**
 * The real services of a test app's config and database, built the way buildApp builds them (immich's
 * medium-test harness): a test calls a service directly without wiring constructors by hand. `overrides` swaps
 * a part (e.g. a hasher that interleaves work with a verify). The test app's own mailer sends their mail.
 */
export function buildTestServices(ctx: TestApp, overrides: Partial<ServiceDeps> = {}): Services {
  return buildServices(ctx.config, testServiceDeps(ctx, overrides));
}

/** The operator commands' services (services/operator.ts) on a test app's config and database. */
export function buildTestOperatorServices(ctx: TestApp): ReturnType<typeof buildOperatorServices> {
  return buildOperatorServices(ctx.config, testServiceDeps(ctx));
}

function testServiceDeps(ctx: TestApp, overrides: Partial<ServiceDeps> = {}): ServiceDeps {
  const log = pino({ level: 'silent' });
  return {
    database: ctx.database.handle,
    storage: createStorage(ctx.config.media),
    limits: openRateLimits(ctx.config.rateLimits, undefined, log),
    log,
    metrics: new AppMetrics(),
    mailer: ctx.mailer,
    imageRenderer: ctx.imageRenderer,
    ...overrides,
  };
}
