import { afterEach, describe, expect, it } from 'vitest';
import { ServiceUnavailableError } from '../../src/errors.js';
import { RenderPool } from '../../src/modules/images/render-pool.js';

const OPTIONS = { workers: 1, queueLimit: 2, timeoutMs: 30_000, heapMb: 64 };

describe('RenderPool.close', () => {
  let pool: RenderPool | undefined;
  afterEach(async () => {
    await pool?.close();
  });

  it('fails the render in flight and the waiting ones with a 503, instead of leaving them unanswered', async () => {
    pool = new RenderPool(OPTIONS);
    // Started in this tick (the first on a fresh child, the second waiting for it): neither can finish before close.
    const inFlight = pool.run({ kind: 'never-read' }, 1_000);
    const waiting = pool.run({ kind: 'never-read' }, 1_000);
    const outcomes = Promise.allSettled([inFlight, waiting]);
    await pool.close();
    const [first, second] = await outcomes;
    expect(first).toMatchObject({ status: 'rejected', reason: expect.any(ServiceUnavailableError) });
    expect(second).toMatchObject({ status: 'rejected', reason: expect.any(ServiceUnavailableError) });
    await expect(pool.run({ kind: 'never-read' }, 1_000)).rejects.toBeInstanceOf(ServiceUnavailableError);
  });
});
