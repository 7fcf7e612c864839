import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeTestApp, createTestApp, type TestApp } from '../helpers/app.js';
import { backends } from '../helpers/database.js';
import { bearer, registerUser, unique } from '../helpers/factories.js';
import { expectError, expectOk, expectValidationError } from '../helpers/http.js';
import { GPS_MARKER, jpegFixture, jpegWithGpsFixture, phpScript, pngFixture } from '../helpers/images.js';
import {
  failWritesOfUsernames,
  type Picture,
  pictureUrls,
  registerFields,
  registerWithPicture,
  updatePicture,
} from '../helpers/media.js';
import { type FakeS3, startFakeS3 } from '../helpers/s3.js';

describe.each(backends)('%s: profile pictures on S3-compatible storage', (backend) => {
  let s3: FakeS3;
  let ctx: TestApp;

  beforeAll(async () => {
    s3 = await startFakeS3();
    ctx = await createTestApp(backend, s3.env);
  });
  afterAll(async () => {
    if (ctx) await closeTestApp(ctx);
    if (s3) await s3.close();
  });

  const keyOf = (url: string) => url.slice(`${s3.endpoint}/${s3.bucket}/`.length);

  it('signs up with a photo stored in the bucket, served from its public URL without location data', async () => {
    const photo = await jpegWithGpsFixture();
    expect(photo.includes(GPS_MARKER)).toBe(true);
    const { user } = expectOk<{ user: { profile_picture: Picture } }>(
      await registerWithPicture(ctx.app, photo),
    );
    const urls = pictureUrls(user.profile_picture);
    for (const url of urls)
      expect(url).toMatch(new RegExp(`^${s3.endpoint}/${s3.bucket}/profile-pictures/[A-Za-z0-9_-]+`));
    expect(await s3.keys()).toEqual(expect.arrayContaining(urls.map(keyOf)));

    const sizes = [];
    for (const url of urls) {
      const res = await fetch(url);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('image/jpeg');
      expect(res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
      const body = Buffer.from(await res.arrayBuffer());
      expect(body.includes(GPS_MARKER)).toBe(false);
      const metadata = await sharp(body).metadata();
      expect(metadata.exif).toBeUndefined();
      sizes.push([metadata.width, metadata.height]);
    }
    expect(sizes).toEqual([
      [400, 300],
      [256, 256],
      [64, 64],
    ]);
  });

  it('replaces a picture and removes the old objects after the new one commits', async () => {
    const me = await registerUser(ctx.app);
    const first = expectOk<{ user: { profile_picture: Picture } }>(
      await updatePicture(ctx.app, me.token, await pngFixture(40, 40)),
    ).user.profile_picture;
    const second = expectOk<{ user: { profile_picture: Picture } }>(
      await updatePicture(ctx.app, me.token, await jpegFixture(90, 90)),
    ).user.profile_picture;
    const keys = await s3.keys();
    expect(keys).toEqual(expect.arrayContaining(pictureUrls(second).map(keyOf)));
    for (const key of pictureUrls(first).map(keyOf)) expect(keys).not.toContain(key);
  });

  it('leaves no object behind when the transaction fails or the file is refused', async () => {
    const before = await s3.keys();
    await failWritesOfUsernames(ctx.database.handle.db, 'fails');
    const fields = { ...registerFields(), username: `fails${unique()}` };
    expectError(
      await registerWithPicture(ctx.app, await jpegFixture(), {}, fields),
      500,
      'InternalServerError',
      'Failed to commit transaction.',
    );
    expectValidationError(await registerWithPicture(ctx.app, phpScript(), { filename: 'x.png' }), {
      profile_picture: ['The profile picture must be an image.'],
    });
    expect(await s3.keys()).toEqual(before);
  });

  it('does not serve /media/* itself', async () => {
    expect(
      (await ctx.app.inject({ method: 'GET', url: '/media/profile-pictures/AAAAAAAAAAAAAAAAAAAAAA.jpg' }))
        .statusCode,
    ).toBe(404);
  });
});

describe.each(backends)('%s: S3 storage unreachable', (backend) => {
  let ctx: TestApp;
  beforeAll(async () => {
    // Nothing listens on port 1: every write is refused at once.
    ctx = await createTestApp(backend, {
      S3_BUCKET: 'profile-media',
      S3_ENDPOINT: 'http://127.0.0.1:1',
      S3_FORCE_PATH_STYLE: 'true',
      S3_ACCESS_KEY_ID: 'key',
      S3_SECRET_ACCESS_KEY: 'secret',
    });
  });
  afterAll(async () => {
    if (ctx) await closeTestApp(ctx);
  });

  it('is a 503, and the user keeps no picture', async () => {
    const me = await registerUser(ctx.app);
    expectError(
      await updatePicture(ctx.app, me.token, await pngFixture(20, 20)),
      503,
      'ServiceUnavailableHttpException',
      'Service Unavailable',
    );
    const got = expectOk<{ user: { profile_picture: unknown } }>(
      await ctx.app.inject({ method: 'GET', url: '/v1/user/get', headers: bearer(me.token) }),
    );
    expect(got.user.profile_picture).toBeNull();
  });
});
