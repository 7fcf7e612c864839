import { Gauge, type Registry } from 'prom-client';
import { REPLICA_STATES, type ReplicaStatus } from '../db/replicas.js';

/**
 * The read replicas' gauges, read from the last background check when scraped (a scrape never queries a
 * replica). Labelled by `host:port/database` from DATABASE_REPLICA_URLS: a fixed set, never a credential.
 */
export function registerReplicaGauges(registry: Registry, read: () => ReplicaStatus[]): void {
  const registers = [registry];
  new Gauge({
    name: 'db_replica_up',
    help: 'Whether routed reads go to this read replica (1) or skip it (0).',
    labelNames: ['replica'],
    registers,
    collect() {
      this.reset();
      for (const { name, state } of read()) this.set({ replica: name }, state === 'up' ? 1 : 0);
    },
  });
  new Gauge({
    name: 'db_replica_state',
    help: 'The read replica state found by the last check: up, lagging, down or not_standby (1 = current).',
    labelNames: ['replica', 'state'],
    registers,
    collect() {
      this.reset();
      for (const status of read()) {
        for (const state of REPLICA_STATES) {
          this.set({ replica: status.name, state }, status.state === state ? 1 : 0);
        }
      }
    },
  });
  new Gauge({
    name: 'db_replica_lag_seconds',
    help: 'An upper bound on how far the read replica is behind the primary, by WAL position; absent when unknown.',
    labelNames: ['replica'],
    registers,
    collect() {
      this.reset();
      for (const { name, lagMs } of read()) {
        if (lagMs !== undefined) this.set({ replica: name }, lagMs / 1000);
      }
    },
  });
}
