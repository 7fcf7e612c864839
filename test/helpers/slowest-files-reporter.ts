import path from 'node:path';
import type { Reporter, TestModule } from 'vitest/node';

/** How many of the slowest files the run names at its end: ten, or SLOWEST_FILES (`all` for every file). */
function shownCount(): number {
  const asked = process.env.SLOWEST_FILES;
  if (asked === 'all') return Number.POSITIVE_INFINITY;
  return asked && /^\d+$/.test(asked) ? Number(asked) : 10;
}

interface FileCost {
  file: string;
  /** Its tests and hooks plus its imports, as the worker spent them (longer on a busy machine). */
  wallMs: number;
  /** CPU time of its worker and the processes it started (file-cpu-time.ts); 0 where not measured. */
  cpuMs: number;
}

const seconds = (ms: number, width: number) => (ms / 1000).toFixed(1).padStart(width);

/**
 * Closes every run with its ten most expensive test files, so a file that grew expensive is seen the day it
 * lands (CONTRIBUTING.md says what a file may cost), and with one plain line counting the tests that passed,
 * failed and were skipped. Files are ranked by CPU time where it was measured: on two cores the suite's
 * time is its CPU time over two, and CPU time, unlike a file's duration, hardly changes when other files
 * (or other work) share the machine.
 */
export default class SlowestFilesReporter implements Reporter {
  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    const root = process.cwd();
    const costs: FileCost[] = modules.map((module) => {
      const diagnostic = module.diagnostic();
      return {
        file: path.relative(root, module.moduleId),
        wallMs: diagnostic.duration + diagnostic.collectDuration,
        cpuMs: module.meta().cpuMs ?? 0,
      };
    });
    costs.sort((a, b) => b.cpuMs - a.cpuMs || b.wallMs - a.wallMs);
    const wall = costs.reduce((sum, cost) => sum + cost.wallMs, 0);
    const cpu = costs.reduce((sum, cost) => sum + cost.cpuMs, 0);
    const shown = Math.min(shownCount(), costs.length);
    const lines = costs
      .slice(0, shown)
      .map((cost) => `  ${seconds(cost.cpuMs, 7)} s CPU ${seconds(cost.wallMs, 7)} s  ${cost.file}`);
    console.log(
      `\nThe ${shown} most expensive of ${costs.length} test files ` +
        `(${(cpu / 1000).toFixed(0)} s of CPU, ${(wall / 1000).toFixed(0)} s of worker time in all):\n` +
        `${lines.join('\n')}\n`,
    );
    const counts = { passed: 0, failed: 0, skipped: 0 };
    for (const module of modules) {
      for (const test of module.children.allTests()) {
        const state = test.result().state;
        if (state === 'passed') counts.passed++;
        else if (state === 'failed') counts.failed++;
        else counts.skipped++;
      }
    }
    console.log(`tests: ${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped`);
  }
}
