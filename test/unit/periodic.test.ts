import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { runPeriodically } from '../../src/lib/periodic.js';

/** A task whose runs the test ends by hand. */
function gatedTask() {
  const runs: { signal: AbortSignal; finish: () => void }[] = [];
  const task = (signal: AbortSignal) =>
    new Promise<void>((resolve) => {
      runs.push({ signal, finish: resolve });
    });
  return { runs, task };
}

describe('runPeriodically', () => {
  // The clock is the test's: ticks happen when it advances it, whatever the machine's load.
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('runs at once, idles only when the run ends, and never runs twice at the same time', async () => {
    const { runs, task } = gatedTask();
    const run = runPeriodically(task, 5);
    expect(runs).toHaveLength(1);
    let idle = false;
    const idling = run.idle().then(() => {
      idle = true;
    });
    // Ticks while the first run is going are skipped.
    await vi.advanceTimersByTimeAsync(30);
    expect(runs).toHaveLength(1);
    expect(idle).toBe(false);
    runs[0]?.finish();
    await idling;
    expect(idle).toBe(true);
    await vi.advanceTimersByTimeAsync(30);
    expect(runs.length).toBeGreaterThan(1);
    for (const r of runs) r.finish();
    await run.stop();
  });

  it('stops: aborts the run under way, waits for it, and starts no other', async () => {
    const { runs, task } = gatedTask();
    const run = runPeriodically(task, 5);
    let stopped = false;
    const stopping = run.stop().then(() => {
      stopped = true;
    });
    expect(runs[0]?.signal.aborted).toBe(true);
    await vi.advanceTimersByTimeAsync(30);
    expect(stopped).toBe(false);
    runs[0]?.finish();
    await stopping;
    await vi.advanceTimersByTimeAsync(30);
    expect(runs).toHaveLength(1);
  });

  it('survives a task that rejects, and runs it again on the next tick', async () => {
    let calls = 0;
    const run = runPeriodically(async () => {
      calls += 1;
      throw new Error('bug in the task');
    }, 5);
    await run.idle();
    await vi.advanceTimersByTimeAsync(30);
    expect(calls).toBeGreaterThan(1);
    await run.stop();
  });
});
