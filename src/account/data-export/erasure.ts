import type { Executor } from '../../db/transaction.js';
import type { ExportStore } from '../../storage/export-store.js';
import type { DataExportsRepo } from './repo.js';

/**
 * The account eraser's view of a user's export zips (AccountEraser's UserExportFiles): their keys read in
 * the erasing transaction, the zips removed after it commits. A zip that cannot be removed is reported with
 * its key, like a picture's files.
 */
export function userExportFiles(
  exports: DataExportsRepo,
  store: ExportStore,
  reportFailure: (keys: readonly string[], error: unknown) => void,
) {
  return {
    fileKeysOf: (trx: Executor, userId: string) => exports.with(trx).fileKeysOf(userId),
    remove: async (keys: readonly string[]) => {
      if (keys.length === 0) return;
      await store.delete(keys).catch((error: unknown) => reportFailure(keys, error));
    },
  };
}
