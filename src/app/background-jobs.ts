import type { FastifyInstance } from 'fastify';
import type { DataExportJobs } from '../account/data-export/jobs.js';
import { type DueDeletions, sweepDueDeletionsPeriodically } from '../account/deletion/sweep.js';
import { type GuardianDeadline, sweepGuardianDeadlinePeriodically } from '../account/guardian/sweep.js';
import type { Config } from '../config.js';
import type { PeriodicRun } from '../lib/periodic.js';
import { type MailSummaries, summarizePeriodically } from '../mail/summaries.js';
import type { AccessRecords } from '../modules/access-records/service.js';
import { sweepAccessRecordsPeriodically } from '../modules/access-records/sweep.js';
import {
  PRUNE_INTERVAL_MS,
  prunePeriodically as pruneKeysPeriodically,
} from '../modules/idempotency/prune.js';
import {
  type MediaReferences,
  OrphanMediaSweeper,
  sweepPeriodically,
} from '../modules/images/orphan-sweep.js';
import { prunePeriodically } from '../modules/security-events/prune.js';
import type { SecurityEventsService } from '../modules/security-events/service.js';
import type { WebhookDelivery } from '../modules/webhooks/delivery.js';
import { type DeliveryWake, deliverPeriodically } from '../modules/webhooks/delivery-loop.js';
import { LocalStorage } from '../storage/local-storage.js';
import type { MediaStorage } from '../storage/media-storage.js';
import { S3Storage } from '../storage/s3-storage.js';

/** What the background jobs work on: the services' parts they run passes of. */
export interface BackgroundWork {
  storage: MediaStorage;
  mediaReferences: MediaReferences[];
  dataExportJobs: DataExportJobs;
  securityEvents: SecurityEventsService;
  dueDeletions: DueDeletions;
  /** Children whose guardian did not consent within GUARDIAN_CONSENT_DAYS. */
  guardianDeadline: GuardianDeadline;
  /** The Idempotency-Key records, for their periodic prune. */
  idempotency: { prune(): Promise<number> };
  /** The summaries of the mails the per-address cap held back. */
  mailSummaries: MailSummaries;
  /** The account events' delivery to webhook endpoints. */
  webhookDelivery: WebhookDelivery;
  /** The access records, swept past ACCESS_RECORD_RETENTION. */
  accessRecords: AccessRecords;
  /** What wakes the delivery after a commit that wrote events. */
  deliveryWake: DeliveryWake;
}

/** Resolves when no background pass (periodic jobs, export builds) is under way. */
export type BackgroundIdle = () => Promise<void>;

/** The periodic jobs this config turns on, each started when called. */
function periodicJobs(app: FastifyInstance, config: Config, work: BackgroundWork): (() => PeriodicRun)[] {
  const periodic: (() => PeriodicRun)[] = [];
  const { storage } = work;
  if (
    (storage instanceof LocalStorage || storage instanceof S3Storage) &&
    config.mediaSweepIntervalMinutes > 0
  ) {
    const sweeper = new OrphanMediaSweeper(storage, work.mediaReferences);
    periodic.push(() => sweepPeriodically(sweeper, config.mediaSweepIntervalMinutes * 60_000, app.log));
  }
  // Security events older than SECURITY_EVENTS_DAYS, by every instance.
  periodic.push(() => prunePeriodically(work.securityEvents, config.securityEvents.retentionDays, app.log));
  if (config.deletion.graceDays > 0) {
    periodic.push(() =>
      sweepDueDeletionsPeriodically(work.dueDeletions, config.deletion.sweepIntervalMs, app.log),
    );
  }
  // Children whose guardian did not answer in time, on the deletion sweep's interval, by every instance.
  periodic.push(() =>
    sweepGuardianDeadlinePeriodically(work.guardianDeadline, config.deletion.sweepIntervalMs, app.log),
  );
  // The per-address mail cap's summaries, by every instance (one per address and window whoever sends it).
  periodic.push(() => summarizePeriodically(work.mailSummaries, app.log));
  // Access records past ACCESS_RECORD_RETENTION, by every instance (each batch holds the chain's head).
  periodic.push(() =>
    sweepAccessRecordsPeriodically(
      work.accessRecords,
      config.accessRecords.retentionDays,
      config.accessRecords.sweepIntervalMs,
      app.log,
    ),
  );
  // Idempotency-Key answers past their day.
  periodic.push(() => pruneKeysPeriodically(work.idempotency, PRUNE_INTERVAL_MS, app.log));
  // Account events to webhook endpoints, by every instance (they share the work through SKIP LOCKED).
  if (config.webhooks.pollIntervalMs > 0) {
    periodic.push(() =>
      deliverPeriodically(work.webhookDelivery, config.webhooks.pollIntervalMs, app.log, work.deliveryWake),
    );
  }
  return periodic;
}

/**
 * The background jobs, started once the app is ready and stopped, and awaited, before the database closes
 * (the caller closes it after the app). Data exports are built now and then (exports a crashed instance left,
 * expiries) and after each request; the periodic jobs run at start and then on their interval. Returns what
 * waits for the passes under way (tests; shutdown).
 */
export function startBackgroundJobs(
  app: FastifyInstance,
  config: Config,
  work: BackgroundWork,
): BackgroundIdle {
  const { dataExportJobs } = work;
  app.addHook('onReady', async () => dataExportJobs.start());
  app.addHook('onClose', async () => dataExportJobs.close());
  const periodic = periodicJobs(app, config, work);
  let runs: PeriodicRun[] = [];
  app.addHook('onReady', async () => {
    runs = periodic.map((start) => start());
  });
  app.addHook('onClose', async () => {
    await Promise.all(runs.map((run) => run.stop()));
  });
  if (config.webhooks.pollIntervalMs > 0) {
    // A write that succeeded may have written account events: deliver them now, not at the next tick. The
    // woken pass probes for work first, and passes are at least 200 ms apart (delivery-loop.ts).
    app.addHook('onResponse', (request, reply, done) => {
      if (request.method !== 'GET' && request.method !== 'HEAD' && reply.statusCode < 400) {
        work.deliveryWake.wake();
      }
      done();
    });
  }
  return async () => {
    await Promise.all([...runs.map((run) => run.idle()), dataExportJobs.idle()]);
  };
}
