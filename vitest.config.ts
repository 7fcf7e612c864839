import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Builds dist/ once (when a source is newer) and migrates the run's PostgreSQL template before any file.
    globalSetup: ['test/helpers/global-setup.ts'],
    // Measures each file's CPU time (with the processes it started) for the slowest-files report.
    setupFiles: ['test/helpers/file-cpu-time.ts'],
    reporters: ['default', './test/helpers/slowest-files-reporter.ts'],
    // Each test file gets its own database (a copy of the run's migrated template), so files run in
    // parallel safely. Three workers on CI's two cores: with two the cores sat idle while tests waited on
    // processes, browsers and timers (the whole run 910 s); three keep them busy (698 s, 99 % of both
    // cores), four gain nothing more. As many kept as started: retiring an idle worker while files share
    // workers ends the run with "Terminating worker thread" (tinypool), whatever the tests did.
    pool: 'forks',
    maxWorkers: 3,
    minWorkers: 3,
    // A worker runs its files one after another in one module graph: the service's modules are imported
    // once per worker instead of once per file (the unit suite: 91 s isolated, 49 s shared). Nothing of one
    // file reaches the next: the service keeps no module-level state, each file builds its own apps and
    // databases, and spies are put back after every test.
    isolate: false,
    restoreMocks: true,
    unstubEnvs: true,
    unstubGlobals: true,
    // A poll waits for what a page or process does next (a sign-in's hash, a page's first fetch), not for a
    // deadline: vitest's 1 s default failed such waits on a loaded 2-core machine while the flow was fine.
    expect: { poll: { timeout: 10_000 } },
    testTimeout: 30_000,
    hookTimeout: 120_000,
  },
});
