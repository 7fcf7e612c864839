import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Builds dist/ once (when a source is newer) and migrates the run's PostgreSQL template before any file.
    globalSetup: ['test/helpers/global-setup.ts'],
    reporters: ['default', './test/helpers/slowest-files-reporter.ts'],
    // Each test file gets its own database (a copy of the run's migrated template), so files run in
    // parallel safely; two workers match the two cores CI has.
    pool: 'forks',
    maxWorkers: 2,
    minWorkers: 1,
    // A worker runs its files one after another in one module graph: the service's modules are imported
    // once per worker instead of once per file (the unit suite: 91 s isolated, 49 s shared). Nothing of one
    // file reaches the next: the service keeps no module-level state, each file builds its own apps and
    // databases, and spies are put back after every test.
    isolate: false,
    restoreMocks: true,
    unstubEnvs: true,
    unstubGlobals: true,
    testTimeout: 30_000,
    hookTimeout: 120_000,
  },
});
