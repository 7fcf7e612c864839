import pino from 'pino';
import { type OperatorServices, operatorServices } from '../../src/cli/context.js';
import { AppMetrics } from '../../src/metrics/metrics.js';
import { buildServices, type ServiceDeps, type Services } from '../../src/services.js';
import type { TestApp } from './app.js';

/**
 * The real services of a test app, built the way buildApp builds them (immich's medium-test harness), on the
 * app's own infrastructure: a test calls a service directly without wiring constructors by hand, and the test
 * app's mailer sends their mail. `overrides` swaps a part (e.g. a hasher that interleaves work with a verify).
 */
export function buildTestServices(ctx: TestApp, overrides: Partial<ServiceDeps> = {}): Services {
  return buildServices({
    config: ctx.config,
    deps: {
      ...ctx.infrastructure,
      // Quiet, and with metrics of their own (the app's registry holds its collectors once).
      log: pino({ level: 'silent' }),
      metrics: new AppMetrics(),
      ...overrides,
    },
  });
}

/** The operator commands' view of those services (cli/context.ts). */
export function buildTestOperatorServices(ctx: TestApp): OperatorServices {
  return operatorServices(buildTestServices(ctx));
}
