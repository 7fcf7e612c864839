import { type PeriodicRun, runPeriodically } from '../../lib/periodic.js';
import type { SweepableStorage } from '../../storage/media-storage.js';

/**
 * A table whose rows reference stored media keys. Profile pictures (users.profile_picture.keys) are one;
 * every new kind of stored file (post images, …) adds one, or its files are swept as orphans.
 */
export interface MediaReferences {
  /** Which of these keys a row still references (asked a batch at a time, on an index). */
  referencedMediaKeys(keys: readonly string[]): Promise<string[]>;
}

export interface SweepResult {
  /** Keys removed because no row references them. */
  orphans: string[];
  /** Partial files (a write cut short by a crash) removed. */
  partials: number;
}

/** Younger files are left alone: their row may not be committed yet (an upload's transaction). */
export const ORPHAN_MIN_AGE_MS = 60 * 60 * 1000;
const BATCH = 500;

/**
 * Removes stored files that nothing references: files written before a crash (or a failed cleanup) whose
 * transaction never committed or whose replacement removed the row's reference but not the file, and
 * `.partial` files of writes cut short. Only files older than an hour are considered, so a file whose row is
 * still being written is never taken; names the service would not make are left alone.
 */
export class OrphanMediaSweeper {
  constructor(
    private readonly storage: SweepableStorage,
    private readonly references: readonly MediaReferences[],
    private readonly minAgeMs = ORPHAN_MIN_AGE_MS,
  ) {}

  async sweep(now = new Date()): Promise<SweepResult> {
    const cutoff = now.getTime() - this.minAgeMs;
    const result: SweepResult = { orphans: [], partials: 0 };
    let batch: string[] = [];
    for await (const file of this.storage.files()) {
      if (file.modified.getTime() > cutoff) continue;
      if (file.partial) {
        await this.storage.removeFile(file.path);
        result.partials += 1;
      } else if (file.key !== undefined) {
        batch.push(file.key);
        if (batch.length >= BATCH) {
          result.orphans.push(...(await this.removeUnreferenced(batch)));
          batch = [];
        }
      }
    }
    result.orphans.push(...(await this.removeUnreferenced(batch)));
    return result;
  }

  private async removeUnreferenced(keys: string[]): Promise<string[]> {
    if (keys.length === 0) return [];
    const referenced = new Set<string>();
    for (const source of this.references) {
      for (const key of await source.referencedMediaKeys(keys)) referenced.add(key);
    }
    const orphans = keys.filter((key) => !referenced.has(key));
    if (orphans.length > 0) await this.storage.delete(orphans);
    return orphans;
  }
}

export interface SweepLogger {
  info(details: object, message: string): void;
  warn(details: object, message: string): void;
}

/**
 * Sweeps once now and then every `intervalMs`, one sweep at a time.
 * A failed sweep is logged and tried again at the next interval: nothing depends on it finishing.
 */
export function sweepPeriodically(
  sweeper: OrphanMediaSweeper,
  intervalMs: number,
  log: SweepLogger,
): PeriodicRun {
  return runPeriodically(
    () =>
      sweeper.sweep().then(
        (result) => {
          if (result.orphans.length > 0 || result.partials > 0) {
            log.info({ orphans: result.orphans.length, partials: result.partials }, 'orphan media removed');
          }
        },
        (error: unknown) => log.warn({ err: error }, 'orphan media sweep failed'),
      ),
    intervalMs,
  );
}
