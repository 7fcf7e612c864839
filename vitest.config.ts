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
    testTimeout: 30_000,
    hookTimeout: 120_000,
  },
});
