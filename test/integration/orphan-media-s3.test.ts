import { PutObjectCommand } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { OrphanMediaSweeper } from '../../src/modules/images/orphan-sweep.js';
import { UsersRepo } from '../../src/modules/users/repo.js';
import { UsersService } from '../../src/modules/users/service.js';
import { S3Storage } from '../../src/storage/s3-storage.js';
import { closeTestApp, createTestApp, type TestApp } from '../helpers/app.js';
import { backends } from '../helpers/database.js';
import { pngFixture } from '../helpers/images.js';
import { userWithPicture } from '../helpers/media.js';
import { type FakeS3, startFakeS3 } from '../helpers/s3.js';

const TWO_HOURS = 2 * 60 * 60 * 1000;

describe.each(backends)('%s: orphan media sweep on S3', (backend) => {
  let s3: FakeS3;
  let ctx: TestApp;
  let storage: S3Storage;

  beforeAll(async () => {
    s3 = await startFakeS3();
    ctx = await createTestApp(backend, { ...s3.env, MEDIA_SWEEP_INTERVAL_MINUTES: '0' });
    const media = loadConfig(s3.env).media;
    if (media.driver !== 's3') throw new Error('expected the s3 driver');
    storage = new S3Storage(media);
  });
  afterAll(async () => {
    storage?.close();
    if (ctx) await closeTestApp(ctx);
    if (s3) await s3.close();
  });

  it('lists the bucket and removes objects no row references, once they are old enough', async () => {
    const { picture } = await userWithPicture(ctx.app, await pngFixture(64, 64));
    const orphan = 'profile-pictures/OrphanOrphanOrphanOrph.png';
    for (const key of [orphan, 'not-ours.txt']) {
      await storage.client.send(new PutObjectCommand({ Bucket: s3.bucket, Key: key, Body: 'x' }));
    }
    const live = await s3.keys();
    const sweeper = new OrphanMediaSweeper(storage, [
      new UsersService(new UsersRepo(ctx.database.handle.db)),
    ]);

    // Everything is new: nothing is touched.
    expect((await sweeper.sweep()).orphans).toEqual([]);
    // Two hours on, the unreferenced object goes; the picture's objects and foreign names stay.
    const result = await sweeper.sweep(new Date(Date.now() + TWO_HOURS));
    expect(result.orphans).toEqual([orphan]);
    expect(await s3.keys()).toEqual(live.filter((key) => key !== orphan));
    const pictureKey = picture.url.slice(picture.url.indexOf('profile-pictures/'));
    expect(await s3.keys()).toContain(pictureKey);
  });
});
