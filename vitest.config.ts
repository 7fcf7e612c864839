import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/helpers/global-setup.ts'],
    // Each test file gets its own database (an in-memory PGlite, or a fresh PostgreSQL database), so files
    // run in parallel safely; two workers match the two cores CI has.
    pool: 'forks',
    maxWorkers: 2,
    minWorkers: 1,
    testTimeout: 30_000,
    hookTimeout: 120_000,
  },
});
