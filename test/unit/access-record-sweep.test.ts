import { describe, expect, it } from 'vitest';
import type { AccessRecords } from '../../src/modules/access-records/service.js';
import { sweepAccessRecordsPeriodically } from '../../src/modules/access-records/sweep.js';

/** A stand-in for the records: what the periodic sweep asks of them and what it logs. */
function fakes(sweep: (days: number, options: { signal?: AbortSignal }) => Promise<number>) {
  const calls: number[] = [];
  const lines: { level: string; details: object; message: string }[] = [];
  const records = {
    sweep: (days: number, options: { signal?: AbortSignal }) => {
      calls.push(days);
      return sweep(days, options);
    },
  } as unknown as AccessRecords;
  const log = {
    info: (details: object, message: string) => lines.push({ level: 'info', details, message }),
    warn: (details: object, message: string) => lines.push({ level: 'warn', details, message }),
  };
  return { records, log, calls, lines };
}

describe('the access records’ periodic sweep', () => {
  it('sweeps at once with the retention and logs how many records went', async () => {
    const { records, log, calls, lines } = fakes(async () => 3);
    const run = sweepAccessRecordsPeriodically(records, 732, 60_000, log);
    await run.stop();
    expect(calls).toEqual([732]);
    expect(lines).toEqual([
      { level: 'info', details: { removed: 3, retentionDays: 732 }, message: 'old access records swept' },
    ]);
  });

  it('says nothing when nothing was due, and logs a failed pass as a warning', async () => {
    const quiet = fakes(async () => 0);
    await sweepAccessRecordsPeriodically(quiet.records, 400, 60_000, quiet.log).stop();
    expect(quiet.lines).toEqual([]);
    const failure = new Error('database down');
    const failing = fakes(async () => {
      throw failure;
    });
    await sweepAccessRecordsPeriodically(failing.records, 400, 60_000, failing.log).stop();
    expect(failing.lines).toEqual([
      { level: 'warn', details: { err: failure }, message: 'access records sweep failed' },
    ]);
  });

  it('hands the sweep the signal that stopping aborts', async () => {
    let seen: AbortSignal | undefined;
    const { records, log } = fakes(async (_days, { signal }) => {
      seen = signal;
      return 0;
    });
    await sweepAccessRecordsPeriodically(records, 400, 60_000, log).stop();
    expect(seen?.aborted).toBe(true);
  });
});
