import { existsSync } from 'node:fs';
import type { TestProject } from 'vitest/node';
import { BUILT_TEMPLATE } from '../../src/db/pglite-template.js';

/**
 * The mutation run's global setup (vitest.mutation.config.ts). Stryker runs the tests in a copy of the
 * project whose sources it has instrumented, so this neither builds dist/ (a build of the instrumented
 * sources would be of no use: mutants are switched in memory) nor makes a PostgreSQL template: the run
 * uses the embedded database only, from the template `npm run mutate` built before Stryker copied dist/.
 */
export default function setup(project: TestProject): void {
  if (!existsSync(BUILT_TEMPLATE)) {
    throw new Error(`${BUILT_TEMPLATE} is missing: run the mutation run with \`npm run mutate\`.`);
  }
  project.provide('postgresTemplate', '');
}
