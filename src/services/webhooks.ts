import { type AccessRecorder, StaffGate } from '../account/console-users/staff-access.js';
import { ConsoleWebhooks } from '../account/console-webhooks/service.js';
import type { Config } from '../config.js';
import { WebhookAttemptsRepo, WebhookDeliveryPages } from '../modules/webhooks/attempts-repo.js';
import { WebhookDeliveriesRepo } from '../modules/webhooks/deliveries-repo.js';
import { WebhookDelivery } from '../modules/webhooks/delivery.js';
import { WebhookEndpointsRepo } from '../modules/webhooks/endpoints-repo.js';
import { WebhookEndpoints } from '../modules/webhooks/endpoints-service.js';
import { WebhookSecrets } from '../modules/webhooks/secrets.js';
import { WebhookSender } from '../modules/webhooks/sender.js';
import type { ServiceDeps } from './deps.js';

/** What the webhooks are made from: the database, a log and (the server's) metrics. */
export interface WebhookParts {
  config: Config;
  deps: Pick<ServiceDeps, 'database' | 'log' | 'metrics' | 'tracing'>;
}

/** The webhooks of account events. */
export interface WebhookServices {
  /** The operator's handle on the endpoints (`accounts webhook …`). */
  webhookEndpoints: WebhookEndpoints;
  /** The delivery passes (the server runs them in the background). */
  webhookDelivery: WebhookDelivery;
}

/**
 * The webhooks of account events: the operator's handle on the endpoints, and the delivery passes the server
 * runs. Endpoint secrets are sealed with SECRETS_KEY; without it no endpoint can be added.
 */
export function buildWebhooks({ config, deps }: WebhookParts): WebhookServices {
  const db = deps.database.db;
  const endpointsRepo = new WebhookEndpointsRepo(db);
  const deliveriesRepo = new WebhookDeliveriesRepo(db);
  const { secretsKey } = config.secondFactor;
  const secrets = secretsKey === undefined ? undefined : new WebhookSecrets(secretsKey);
  const { allowPrivate } = config.webhooks;
  const webhookEndpoints = new WebhookEndpoints({
    endpoints: endpointsRepo,
    deliveries: deliveriesRepo,
    attempts: new WebhookAttemptsRepo(db),
    deliveryPages: new WebhookDeliveryPages(db),
    secrets,
    allowPrivate,
  });
  const webhookDelivery = new WebhookDelivery({
    deliveries: deliveriesRepo,
    endpoints: endpointsRepo,
    secrets,
    sender: new WebhookSender(allowPrivate, undefined, config.webhooks.timeoutMs),
    retryScheduleMs: config.webhooks.retryScheduleMs,
    retentionDays: config.webhooks.eventRetentionDays,
    log: deps.log,
    observer: deps.metrics?.watchWebhooks(),
    tracing: deps.tracing,
  });
  return { webhookEndpoints, webhookDelivery };
}

/** The webhooks in the console: the operator's same handle, behind `webhooks.manage`, into the records. */
export interface ConsoleWebhookServices {
  consoleWebhooks: ConsoleWebhooks;
}

/** The console's webhooks, built by buildServices on the one WebhookEndpoints the CLI calls. */
export function buildConsoleWebhooks(parts: {
  webhookEndpoints: WebhookEndpoints;
  recorder: AccessRecorder;
}): ConsoleWebhookServices {
  return { consoleWebhooks: new ConsoleWebhooks(parts.webhookEndpoints, new StaffGate(parts.recorder)) };
}
