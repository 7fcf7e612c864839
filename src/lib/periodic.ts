/**
 * Runs `task` now and then every `intervalMs`, never two at once (a run still going when the next is due is
 * left to finish, and that tick skipped). The timer does not keep the process alive. The returned stop
 * clears the timer and waits for a run in progress, so nothing runs on after what it uses is closed. `task`
 * reports its own outcome: a rejection here is a bug in it, and is swallowed only so a tick cannot crash.
 */
export function runPeriodically(task: () => Promise<void>, intervalMs: number): () => Promise<void> {
  let running: Promise<void> | undefined;
  const run = () => {
    running ??= task()
      .catch(() => undefined)
      .finally(() => {
        running = undefined;
      });
  };
  run();
  const timer = setInterval(run, intervalMs);
  timer.unref();
  return async () => {
    clearInterval(timer);
    await running;
  };
}
