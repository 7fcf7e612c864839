import { type PeriodicRun, runPeriodically } from '../../lib/periodic.js';
import type { DeliveryLog, WebhookDelivery } from './delivery.js';

const MAINTENANCE_INTERVAL_MS = 10 * 60_000;
/** A woken pass starts at least this long after the previous one: a burst of commits makes a few passes. */
const WAKE_GAP_MS = 200;

/**
 * Told after a commit that may have written account events (every successful write request: see
 * background-jobs.ts), so this process delivers them at once rather than at its next tick. The delivery loop
 * listens. Without a listener (no loop on
 * this instance, an operator command) a wake does nothing: the events wait for a tick of some instance.
 */
export class DeliveryWake {
  readonly #listeners = new Set<() => void>();

  wake(): void {
    for (const listener of this.#listeners) listener();
  }

  /** Adds a listener; returns what removes it. */
  listen(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }
}

/**
 * Runs dispatch and delivery every `intervalMs` when the probe finds work, and at once (WAKE_GAP_MS after the
 * last pass at most) when `wake` is told of a commit or an endpoint has room again; the maintenance every few
 * minutes. Every instance runs it: they share the work through SKIP LOCKED. Passes never overlap (a wake
 * during one runs another after it), but a pass only claims and starts: attempts run on beside later passes.
 * A failed pass is logged and tried again at the next tick.
 */
export function deliverPeriodically(
  delivery: WebhookDelivery,
  intervalMs: number,
  log: DeliveryLog,
  wake?: DeliveryWake,
): PeriodicRun {
  const stopping = new AbortController();
  let running: Promise<void> | undefined;
  let again = false;
  let lastStart = 0;
  let soon: NodeJS.Timeout | undefined;
  const pass = async () => {
    try {
      // Probed first: every successful write wakes a pass, and most wrote no event.
      const work = await delivery.work();
      // The claims' attempts are not waited for: they run on, each endpoint in its own slots, while the next
      // pass fans out what comes next (delivery.idle() waits for them).
      if (work.undispatched) await delivery.startDispatch(stopping.signal);
      if (work.due) await delivery.startDelivery(stopping.signal);
    } catch (error) {
      log.warn({ err: error }, 'webhook delivery pass failed');
    }
  };
  const start = () => {
    if (running !== undefined || stopping.signal.aborted) return;
    lastStart = Date.now();
    running = pass().finally(() => {
      running = undefined;
      if (again) {
        again = false;
        schedule();
      }
    });
  };
  const schedule = () => {
    if (soon !== undefined || stopping.signal.aborted) return;
    soon = setTimeout(
      () => {
        soon = undefined;
        start();
      },
      Math.max(0, lastStart + WAKE_GAP_MS - Date.now()),
    );
    soon.unref();
  };
  const woken = () => {
    if (running !== undefined) again = true;
    else schedule();
  };
  const unlisten = wake?.listen(woken);
  // An endpoint this instance stopped claiming for has room again: claim what waits for it.
  const unlistenRoom = delivery.onRoom(woken);
  start();
  const timer = setInterval(() => start(), intervalMs);
  timer.unref();
  const maintenance = runPeriodically(async () => {
    try {
      await delivery.maintain();
    } catch (error) {
      log.warn({ err: error }, 'webhook maintenance failed');
    }
  }, MAINTENANCE_INTERVAL_MS);
  return {
    idle: async () => {
      await Promise.all([running, maintenance.idle()]);
      await delivery.idle();
    },
    stop: async () => {
      unlisten?.();
      unlistenRoom();
      clearInterval(timer);
      clearTimeout(soon);
      stopping.abort();
      await Promise.all([running, maintenance.stop()]);
      await delivery.close();
    },
  };
}
