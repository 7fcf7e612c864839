import { describe, expect, it } from 'vitest';
import type { LoadResult } from '../../bench/load.js';
import { hotPathVerdicts } from '../../bench/verdicts.js';

const at = (requestsPerSecond: number, p99 = 1): LoadResult => ({
  requestsPerSecond,
  p50: 1,
  p99,
  failures: 0,
});

const measures = {
  validate: at(850),
  userGet: at(590),
  readLimit: at(1000),
  login: at(95),
  verifyLimit: at(100),
  register: at(90),
  hashLimit: at(100),
  probeIdle: at(0, 1),
  probeDuringLogin: at(0, 2),
  probeRate: 200,
  peakRss: { process: 150, tree: 230 },
  embedded: false,
};

describe('bench hot-path verdicts', () => {
  it('judges user/get against 0.6 of the prepared bare route', () => {
    const userGet = hotPathVerdicts(measures).find((v) => v.target.startsWith('user/get'));
    expect(userGet).toMatchObject({ goal: 0.6, judged: true, pass: false });
    expect(userGet?.ratio).toBeCloseTo(0.59);
  });

  it('judges memory on the whole process tree and prints the service process alone beside it', () => {
    const memory = hotPathVerdicts(measures).filter((v) => v.target.startsWith('peak RSS'));
    expect(memory.map((v) => [v.measured, v.judged, v.pass])).toEqual([
      ['230 MB', true, false],
      ['150 MB', false, true],
    ]);
  });

  it('judges only validate on the embedded database', () => {
    const judged = hotPathVerdicts({ ...measures, embedded: true }).filter((v) => v.judged);
    expect(judged.map((v) => v.target)).toEqual(['validate/email (taken), 50 conns ÷ bare Fastify']);
  });
});
