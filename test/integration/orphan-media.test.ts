import { mkdir, readdir, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { OrphanMediaSweeper } from '../../src/modules/images/orphan-sweep.js';
import { UsersRepo } from '../../src/modules/users/repo.js';
import { UsersService } from '../../src/modules/users/service.js';
import { LocalStorage } from '../../src/storage/local-storage.js';
import { useTestApp } from '../helpers/app.js';
import { backends } from '../helpers/database.js';
import { bearer, registerUser } from '../helpers/factories.js';
import { expectOk, postMultipart } from '../helpers/http.js';
import { pngFixture } from '../helpers/images.js';
import { pictureUrls, userWithPicture } from '../helpers/media.js';

const TWO_HOURS_AGO = new Date(Date.now() - 2 * 60 * 60 * 1000);

/** Files left behind by a crash between writing and committing, or mid-write, are removed by the sweep. */
describe.each(backends)('%s: orphan media sweep', (backend) => {
  const ctx = useTestApp(backend, { MEDIA_SWEEP_INTERVAL_MINUTES: '0' });
  const mediaDir = () => path.join(ctx.dataDir, 'media');

  async function plant(name: string, modified: Date): Promise<string> {
    const file = path.join(mediaDir(), 'profile-pictures', name);
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, 'left behind');
    await utimes(file, modified, modified);
    return file;
  }

  it('removes old unreferenced files and partial writes; keeps referenced, young and foreign files', async () => {
    const { picture } = await userWithPicture(ctx.app, await pngFixture(64, 64));
    // The live picture's files, aged: referenced, so they stay whatever their age.
    const live = pictureUrls(picture).map((url) => path.join(mediaDir(), url.slice('/media/'.length)));
    for (const file of live) await utimes(file, TWO_HOURS_AGO, TWO_HOURS_AGO);
    await plant('OrphanOrphanOrphanOrph.png', TWO_HOURS_AGO);
    await plant('OrphanOrphanOrphanOrph_256.png', TWO_HOURS_AGO);
    await plant('CrashedCrashedCrashedC.png.1a2b3c.partial', TWO_HOURS_AGO);
    await plant('YoungYoungYoungYoungYo.png', new Date());
    await plant('README.txt', TWO_HOURS_AGO);

    const storage = new LocalStorage(mediaDir(), '/media');
    const users = new UsersService(new UsersRepo(ctx.database.handle.db));
    const result = await new OrphanMediaSweeper(storage, [users]).sweep();

    expect(result.orphans.sort()).toEqual([
      'profile-pictures/OrphanOrphanOrphanOrph.png',
      'profile-pictures/OrphanOrphanOrphanOrph_256.png',
    ]);
    expect(result.partials).toBe(1);
    const left = (await readdir(path.join(mediaDir(), 'profile-pictures'))).sort();
    expect(left).toEqual(
      [...live.map((file) => path.basename(file)), 'README.txt', 'YoungYoungYoungYoungYo.png'].sort(),
    );
    for (const url of pictureUrls(picture)) {
      expect((await ctx.app.inject({ method: 'GET', url })).statusCode).toBe(200);
    }
  });
});

describe.each(backends)('%s: orphan media sweep at start', (backend) => {
  const ctx = useTestApp(backend, { MEDIA_SWEEP_INTERVAL_MINUTES: '60' });

  it('runs once the app is ready', async () => {
    const file = path.join(ctx.dataDir, 'media', 'profile-pictures', 'StartStartStartStartSt.png');
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, 'x');
    await utimes(file, TWO_HOURS_AGO, TWO_HOURS_AGO);
    // A second app on the same data directory sweeps as it starts.
    const { buildApp } = await import('../../src/app.js');
    const app = await buildApp(ctx.config, { database: ctx.database.handle });
    await app.ready();
    await expect.poll(() => readdir(path.dirname(file)), { timeout: 10_000 }).toEqual([]);
    await app.close();
  });
});

describe.each(backends)('%s: orphan media sweep and post images', (backend) => {
  const ctx = useTestApp(backend, { MEDIA_SWEEP_INTERVAL_MINUTES: '60' });

  it("never takes a post's images for leftovers, however old", async () => {
    const author = await registerUser(ctx.app);
    const res = await postMultipart(
      ctx.app,
      '/v1/post/create',
      { text: 'kept' },
      { 'images[]': { filename: 'a.png', contentType: 'image/png', data: await pngFixture(40, 30) } },
      bearer(author.token),
    );
    const { post } = expectOk<{ post: { images: Parameters<typeof pictureUrls>[0][] } }>(res);
    const urls = post.images.flatMap(pictureUrls);
    const files = urls.map((url) => path.join(ctx.dataDir, 'media', url.slice('/media/'.length)));
    for (const file of files) await utimes(file, TWO_HOURS_AGO, TWO_HOURS_AGO);
    const orphan = path.join(path.dirname(files[0] ?? ''), 'OrphanOrphanOrphanOrph.png');
    await writeFile(orphan, 'left behind');
    await utimes(orphan, TWO_HOURS_AGO, TWO_HOURS_AGO);

    // A second app on the same data directory sweeps as it starts: the orphan goes, the post's files stay.
    const { buildApp } = await import('../../src/app.js');
    const app = await buildApp(ctx.config, { database: ctx.database.handle });
    await app.ready();
    await expect
      .poll(async () => (await readdir(path.dirname(orphan))).includes(path.basename(orphan)), {
        timeout: 10_000,
      })
      .toBe(false);
    await app.close();
    for (const url of urls) expect((await ctx.app.inject({ method: 'GET', url })).statusCode, url).toBe(200);
  });
});
