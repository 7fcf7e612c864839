import { randomBytes } from 'node:crypto';
import { rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.js';
import { backends } from '../helpers/database.js';
import { pngFixture } from '../helpers/images.js';
import { userWithPicture } from '../helpers/media.js';

/**
 * `/media/*` read while the file is being replaced and removed: a file that vanished between looking it up
 * and reading it was a 500 with a one-year `immutable` cache header. Now it is served whole or not found.
 */
describe.each(backends)('%s: media reads racing with replacements', (backend) => {
  const ctx = useTestApp(backend);

  it('answers 10,000 reads with only whole files and 404s, never a 500 or a cached miss', async () => {
    const png = await pngFixture(64, 64);
    const { picture } = await userWithPicture(ctx.app, png);
    const file = path.join(ctx.dataDir, 'media', picture.url.slice('/media/'.length));
    const original = await ctx.app.inject({ method: 'GET', url: picture.url });
    const content = original.rawPayload;

    // Removes the file and puts it back (as storage does: written beside it, renamed into place), as fast as
    // the disk allows, while the reads run.
    let churning = true;
    const churner = async () => {
      let replacements = 0;
      while (churning) {
        await rm(file, { force: true });
        const partial = `${file}.${randomBytes(4).toString('hex')}.partial`;
        await writeFile(partial, content);
        await rename(partial, file);
        replacements += 1;
      }
      return replacements;
    };
    const churn = Promise.all([churner(), churner(), churner(), churner()]).then((counts) =>
      counts.reduce((a, b) => a + b, 0),
    );

    const statuses = new Map<number, number>();
    let cachedMisses = 0;
    let partial = 0;
    for (let batch = 0; batch < 400; batch++) {
      const results = await Promise.all(
        Array.from({ length: 25 }, () => ctx.app.inject({ method: 'GET', url: picture.url })),
      );
      for (const res of results) {
        statuses.set(res.statusCode, (statuses.get(res.statusCode) ?? 0) + 1);
        // A miss may say `no-store` (every API answer does), never a cache lifetime.
        const cacheControl = String(res.headers['cache-control'] ?? '');
        if (res.statusCode !== 200 && /max-age|immutable/.test(cacheControl)) cachedMisses += 1;
        if (res.statusCode === 200 && !res.rawPayload.equals(content)) partial += 1;
      }
    }
    churning = false;
    const replacements = await churn;
    console.log(`media race: ${JSON.stringify(Object.fromEntries(statuses))}, ${replacements} replacements`);
    expect(replacements).toBeGreaterThan(0);
    expect([...statuses.keys()].filter((status) => status !== 200 && status !== 404)).toEqual([]);
    expect([...statuses.values()].reduce((a, b) => a + b, 0)).toBe(10_000);
    expect(cachedMisses).toBe(0);
    expect(partial).toBe(0);
  }, 300_000);
});
