/** A task started by runPeriodically. */
export interface PeriodicRun {
  /** Resolves when no run is under way (a start-up pass included). */
  idle(): Promise<void>;
  /** Clears the timer, tells a run under way to stop early, and waits for it. */
  stop(): Promise<void>;
}

/**
 * Runs `task` now and then every `intervalMs`, never two at once (a run still going when the next is due is
 * left to finish, and that tick skipped). The timer does not keep the process alive. Stopping clears the
 * timer, aborts the signal the task was given (a task working through batches ends after the one in hand)
 * and waits for the run in progress, so nothing runs on after what it uses is closed. `task` reports its own
 * outcome: a rejection here is a bug in it, and is swallowed only so a tick cannot crash.
 */
export function runPeriodically(
  task: (signal: AbortSignal) => Promise<void>,
  intervalMs: number,
): PeriodicRun {
  const stopping = new AbortController();
  let running: Promise<void> | undefined;
  const run = () => {
    running ??= task(stopping.signal)
      .catch(() => undefined)
      .finally(() => {
        running = undefined;
      });
  };
  run();
  const timer = setInterval(run, intervalMs);
  timer.unref();
  return {
    idle: async () => {
      await running;
    },
    stop: async () => {
      clearInterval(timer);
      stopping.abort();
      await running;
    },
  };
}
