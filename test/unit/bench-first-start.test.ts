import { describe, expect, it } from 'vitest';
import { type FirstStartResult, firstStartReport, firstStartVerdicts } from '../../bench/first-start.js';

const start = (readyMs: number, treeMb: number) => ({ readyMs, treeMb, processMb: treeMb });

describe('bench first start', () => {
  it('judges the medians of the first starts: a tree peak below 400 MB and /healthz within 4 s', () => {
    const met = firstStartVerdicts([start(3900, 390), start(4000, 399), start(9000, 900)]);
    expect(met.map((v) => [v.measured, v.pass])).toEqual([
      ['399 MB', true],
      ['4000 ms', true],
    ]);
    const missed = firstStartVerdicts([start(4001, 400)]);
    expect(missed.map((v) => v.pass)).toEqual([false, false]);
  });

  it('prints both starts, their ratios and one verdict line', () => {
    const first = [start(3000, 330), start(3400, 334)];
    const result: FirstStartResult = {
      template: false,
      first,
      restart: [start(2000, 300), start(2000, 300)],
      verdicts: firstStartVerdicts(first),
    };
    const report = firstStartReport(result);
    expect(report).toContain('| first (new DATA_DIR, initdb)');
    expect(report).toMatch(/\| first ÷ restart\s+\|\s+1\.60 \|\s+\|\s+1\.11 \|/);
    expect(report).toMatch(/3200 \| 3000–3400 \|\s+332 \| 330–334 \|/);
    expect(report).toContain(
      'VERDICT first start (judged on a quiet machine only): PASS (2 of 2 targets met',
    );
  });
});
