import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import type { PoolStats } from '../db/client.js';
import type { ReplicaStatus } from '../db/replicas.js';
import type { HashObserver, HashOperation } from '../lib/passwords.js';
import type { RateLimitObserver } from '../limits/observed-counter.js';
import type { VerificationObserver, VerificationOutcome } from '../providers/observed-verifier.js';
import { registerReplicaGauges } from './replica-metrics.js';
import { registerSmsMetrics, type SmsObserver } from './sms-metrics.js';
import { registerWebhookMetrics } from './webhook-metrics.js';

/**
 * Every metric of one app instance, on its own registry (never prom-client's global one: tests build many
 * apps in one process, and each must count only its own requests). Label values come only from fixed sets
 * (methods, route templates, statuses, limit and provider names from the config), never from a request's
 * data, so no id, token or address can reach a label and the number of series stays bounded.
 */
export class AppMetrics {
  readonly registry = new Registry();
  readonly httpRequests: Counter<'method' | 'route' | 'status'>;
  readonly httpDuration: Histogram<'method' | 'route' | 'status'>;
  readonly hashDuration: Histogram<'operation'>;
  readonly hashInFlight: Gauge<'operation'>;
  readonly rateLimitRejections: Counter<'limit'>;
  readonly providerVerifications: Counter<'provider' | 'outcome'>;
  readonly providerDuration: Histogram<'provider' | 'outcome'>;
  /** `sms_sent_total`, `sms_refused_total{reason}`. */
  readonly sms: SmsObserver;
  #poolStats: (() => PoolStats) | undefined;

  constructor() {
    const registers = [this.registry];
    this.httpDuration = new Histogram({
      name: 'http_request_duration_seconds',
      help: 'Time from receiving a request to finishing its response, by method, route template and status.',
      labelNames: ['method', 'route', 'status'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers,
    });
    const durations = this.httpDuration;
    this.httpRequests = new Counter({
      name: 'http_requests_total',
      help: 'HTTP requests answered, by method, route template and status.',
      labelNames: ['method', 'route', 'status'],
      registers,
      // The duration histogram counts every answered request by the same labels: the counter is read from
      // it when scraped, so a request costs one series update, not two.
      async collect() {
        this.reset();
        for (const sample of (await durations.get()).values) {
          if (sample.metricName === 'http_request_duration_seconds_count') {
            this.inc(sample.labels as Record<'method' | 'route' | 'status', string>, sample.value);
          }
        }
      },
    });
    this.hashDuration = new Histogram({
      name: 'argon2_duration_seconds',
      help: 'Time of one argon2id hash or verify, including the wait for a libuv thread-pool slot.',
      labelNames: ['operation'],
      buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
      registers,
    });
    this.hashInFlight = new Gauge({
      name: 'argon2_in_flight',
      help: 'argon2id hashes and verifies started and not finished: running, or queued for a thread-pool slot.',
      labelNames: ['operation'],
      registers,
    });
    this.rateLimitRejections = new Counter({
      name: 'rate_limit_rejections_total',
      help: 'Requests refused with 429 by a rate limit, by limit.',
      labelNames: ['limit'],
      registers,
    });
    this.providerVerifications = new Counter({
      name: 'provider_verifications_total',
      help: 'Identity-provider token verifications, by provider and outcome (ok, rejected, unavailable, error).',
      labelNames: ['provider', 'outcome'],
      registers,
    });
    this.providerDuration = new Histogram({
      name: 'provider_verification_duration_seconds',
      help: 'Time of one identity-provider token verification, by provider and outcome.',
      labelNames: ['provider', 'outcome'],
      buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers,
    });
    const stats = () => this.#poolStats?.();
    // Read from the pool when scraped, so nothing runs between scrapes.
    const poolGauge = (name: string, help: string, read: (s: PoolStats) => number) =>
      new Gauge({
        name,
        help,
        registers,
        collect() {
          const current = stats();
          if (current) this.set(read(current));
        },
      });
    poolGauge('db_pool_connections_total', 'Database connections open.', (s) => s.total);
    poolGauge(
      'db_pool_connections_in_use',
      'Database connections busy with a query or transaction.',
      (s) => s.inUse,
    );
    poolGauge('db_pool_waiting', 'Callers waiting for a database connection.', (s) => s.waiting);
    this.sms = registerSmsMetrics(this.registry);
    collectDefaultMetrics({ register: this.registry });
  }

  /** Adds the read replicas' gauges (DATABASE_REPLICA_URLS); an app without replicas has none. */
  watchReplicas(read: () => ReplicaStatus[]): void {
    registerReplicaGauges(this.registry, read);
  }

  /** Adds the webhook queue's gauges and the deliveries' counter; returns what the delivery passes tell. */
  watchWebhooks() {
    return registerWebhookMetrics(this.registry);
  }

  /** Points the pool gauges at the database of this app. */
  watchPool(read: () => PoolStats): void {
    this.#poolStats = read;
  }

  readonly hashObserver: HashObserver = {
    started: (operation: HashOperation) => {
      this.hashInFlight.inc({ operation });
      const stop = this.hashDuration.startTimer({ operation });
      return () => {
        stop();
        this.hashInFlight.dec({ operation });
      };
    },
  };

  readonly rateLimitObserver: RateLimitObserver = {
    rejected: (limit: string) => this.rateLimitRejections.inc({ limit }),
  };

  readonly verificationObserver: VerificationObserver = {
    verified: (provider: string, outcome: VerificationOutcome, seconds: number) => {
      this.providerVerifications.inc({ provider, outcome });
      this.providerDuration.observe({ provider, outcome }, seconds);
    },
  };
}
