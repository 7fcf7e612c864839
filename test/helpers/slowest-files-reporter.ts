import path from 'node:path';
import type { Reporter, TestModule } from 'vitest/node';

/** How many of the slowest files the run names at its end. */
const SHOWN = 10;

/**
 * Closes every run with its ten slowest test files (their tests and hooks plus their imports, as the
 * workers spent them), so a file that grew expensive is seen the day it lands (CONTRIBUTING.md says what a
 * file may cost), and with one plain line counting the tests that passed, failed and were skipped.
 */
export default class SlowestFilesReporter implements Reporter {
  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    const root = process.cwd();
    const timed = modules.map((module) => {
      const diagnostic = module.diagnostic();
      return {
        file: path.relative(root, module.moduleId),
        ms: diagnostic.duration + diagnostic.collectDuration,
      };
    });
    timed.sort((a, b) => b.ms - a.ms);
    const total = timed.reduce((sum, entry) => sum + entry.ms, 0);
    const lines = timed.slice(0, SHOWN).map((entry) => {
      const seconds = (entry.ms / 1000).toFixed(1).padStart(7);
      return `  ${seconds} s  ${entry.file}`;
    });
    const counts = { passed: 0, failed: 0, skipped: 0 };
    for (const module of modules) {
      for (const test of module.children.allTests()) {
        const state = test.result().state;
        if (state === 'passed') counts.passed++;
        else if (state === 'failed') counts.failed++;
        else counts.skipped++;
      }
    }
    console.log(
      `\nThe ${Math.min(SHOWN, timed.length)} slowest of ${timed.length} test files ` +
        `(${(total / 1000).toFixed(0)} s of worker time in all):\n${lines.join('\n')}\n`,
    );
    console.log(`tests: ${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped`);
  }
}
