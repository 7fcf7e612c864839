import type { OperatorServices } from './context.js';

/**
 * Runs `work` with the operator services on the configured database (context.ts), loaded on the first
 * command that needs them: `--help`, `--version` and a mistyped argument answer without importing the
 * services, the database drivers and everything below them.
 */
export async function withOperatorServices<T>(work: (services: OperatorServices) => Promise<T>): Promise<T> {
  const context = await import('./context.js');
  return context.withOperatorServices(work);
}
