import { describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.js';
import { backends } from '../helpers/database.js';
import { scrape, total } from '../helpers/metrics.js';

describe.each(backends)('%s: database pool gauges', (backend) => {
  const ctx = useTestApp(backend);

  it('show a connection held and a caller waiting, read at scrape time', async () => {
    const handle = ctx.database.handle;
    let release!: () => void;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let entered!: () => void;
    const inside = new Promise<void>((resolve) => {
      entered = resolve;
    });
    // A transaction holds one of the pool's connections (migrations' sessions have a client of their own).
    const holding = handle.db.transaction().execute(async () => {
      entered();
      await held;
    });
    await inside;
    const busy = await scrape(ctx.app);
    expect(total(busy, 'db_pool_connections_in_use')).toBeGreaterThanOrEqual(1);
    expect(total(busy, 'db_pool_connections_total')).toBeGreaterThanOrEqual(1);
    if (backend === 'pglite') {
      // One embedded connection: a second caller queues behind the first.
      const queued = handle.withSession(async () => {});
      expect(total(await scrape(ctx.app), 'db_pool_waiting')).toBe(1);
      release();
      await Promise.all([holding, queued]);
    } else {
      release();
      await holding;
    }
    const idle = await scrape(ctx.app);
    expect(total(idle, 'db_pool_connections_in_use')).toBe(0);
    expect(total(idle, 'db_pool_waiting')).toBe(0);
  });
});
