import { readFile } from 'node:fs/promises';
import path from 'node:path';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.js';
import { backends } from '../helpers/database.js';
import { bearer, registerUser } from '../helpers/factories.js';
import { expectOk } from '../helpers/http.js';
import {
  animatedGifFixture,
  DESCRIPTION_MARKER,
  GPS_MARKER,
  gifFixture,
  jpegFixture,
  jpegWithGpsFixture,
  largeJpegFixture,
  PHP_PAYLOAD,
  pngFixture,
  pngWithAppendedPhp,
} from '../helpers/images.js';
import {
  filesUnder,
  type Picture,
  registerWithPicture,
  servedPicture,
  updatePicture,
  userWithPicture,
} from '../helpers/media.js';

const MEDIA_URL = /^\/media\/profile-pictures\/[A-Za-z0-9_-]{22}(_256|_64)?\.(jpg|png|gif)$/;

describe.each(backends)('%s: profile pictures on local storage', (backend) => {
  const ctx = useTestApp(backend);
  const mediaDir = () => path.join(ctx.dataDir, 'media');

  const served = (picture: Picture) => servedPicture(ctx.app, picture);

  /** Every stored file, read from the disk. */
  async function storedFiles(): Promise<Buffer[]> {
    const names = await filesUnder(mediaDir());
    return Promise.all(names.map((name) => readFile(path.join(mediaDir(), name))));
  }

  it('signs up with a photo, served at its URL in three sizes', async () => {
    const res = await registerWithPicture(ctx.app, await jpegFixture(640, 480));
    const { user } = expectOk<{ user: { id: string; profile_picture: Picture; api_token: string } }>(res);
    expect(user.profile_picture).toEqual({
      url: expect.stringMatching(MEDIA_URL),
      width: 640,
      height: 480,
      thumbnails: { '256': expect.stringMatching(MEDIA_URL), '64': expect.stringMatching(MEDIA_URL) },
    });
    const [full, t256, t64] = await served(user.profile_picture);
    expect([full, t256, t64].map((file) => file?.metadata.format)).toEqual(['jpeg', 'jpeg', 'jpeg']);
    expect([full?.metadata.width, full?.metadata.height]).toEqual([640, 480]);
    expect([t256?.metadata.width, t256?.metadata.height]).toEqual([256, 256]);
    expect([t64?.metadata.width, t64?.metadata.height]).toEqual([64, 64]);
    expect(full?.res.headers).toMatchObject({
      'content-type': 'image/jpeg',
      'x-content-type-options': 'nosniff',
      'cache-control': 'public, max-age=31536000, immutable',
      'content-length': String(full?.body.length),
    });
    // user/get shows the same picture.
    const got = expectOk<{ user: { profile_picture: Picture } }>(
      await ctx.app.inject({ method: 'GET', url: '/v1/user/get', headers: bearer(user.api_token) }),
    );
    expect(got.user.profile_picture).toEqual(user.profile_picture);
  });

  it('stores a large photo at most 2048 pixels on its longest side, its shape kept', async () => {
    const res = await registerWithPicture(ctx.app, await largeJpegFixture(3000, 1500));
    const { user } = expectOk<{ user: { profile_picture: Picture } }>(res);
    expect([user.profile_picture.width, user.profile_picture.height]).toEqual([2048, 1024]);
    // The file on the disk, not only what the response says of it.
    const stored = path.join(mediaDir(), user.profile_picture.url.replace(/^\/media\//, ''));
    const metadata = await sharp(await readFile(stored)).metadata();
    expect([metadata.format, metadata.width, metadata.height]).toEqual(['jpeg', 2048, 1024]);
  });

  it('registers without a picture as before (profile_picture null, nothing stored)', async () => {
    const before = await filesUnder(mediaDir());
    const me = await registerUser(ctx.app);
    expect(me.user.profile_picture).toBeNull();
    expect(await filesUnder(mediaDir())).toEqual(before);
  });

  it('stores a png as png and a gif as gif, with png thumbnails for the gif', async () => {
    const png = await userWithPicture(ctx.app, await pngFixture(320, 200));
    expect(
      (await served(png.picture)).map((f) => [f.metadata.format, f.res.headers['content-type']]),
    ).toEqual([
      ['png', 'image/png'],
      ['png', 'image/png'],
      ['png', 'image/png'],
    ]);
    const gif = await userWithPicture(ctx.app, await gifFixture(120, 90));
    expect(gif.picture).toMatchObject({ width: 120, height: 90 });
    expect(
      (await served(gif.picture)).map((f) => [f.metadata.format, f.res.headers['content-type']]),
    ).toEqual([
      ['gif', 'image/gif'],
      ['png', 'image/png'],
      ['png', 'image/png'],
    ]);
  });

  it('keeps an animated gif animated, with its first frame as the thumbnails', async () => {
    const { picture } = await userWithPicture(ctx.app, await animatedGifFixture());
    expect(picture).toMatchObject({ width: 80, height: 60 });
    const [full, t256] = await served(picture);
    expect(full?.metadata).toMatchObject({ format: 'gif', pages: 3 });
    expect(t256?.metadata).toMatchObject({ format: 'png', width: 256, height: 256 });
    expect(t256?.metadata.pages ?? 1).toBe(1);
    // The first frame is red.
    const { dominant } = await sharp(t256?.body).stats();
    expect(dominant.r).toBeGreaterThan(200);
    expect(Math.max(dominant.g, dominant.b)).toBeLessThan(50);
  });

  it('leaves no EXIF or GPS data in any stored file', async () => {
    const photo = await jpegWithGpsFixture();
    // The fixture really carries the location (else this test would prove nothing).
    expect((await sharp(photo).metadata()).exif).toBeDefined();
    expect(photo.includes(GPS_MARKER)).toBe(true);

    const before = new Set((await storedFiles()).map((file) => file.toString('base64')));
    const res = await registerWithPicture(ctx.app, photo);
    const { picture } = {
      picture: expectOk<{ user: { profile_picture: Picture } }>(res).user.profile_picture,
    };
    const servedFiles = await served(picture);
    const newFiles = (await storedFiles()).filter((file) => !before.has(file.toString('base64')));
    expect(newFiles).toHaveLength(3);
    for (const file of [...newFiles, ...servedFiles.map((f) => f.body)]) {
      const metadata = await sharp(file).metadata();
      expect(metadata.exif).toBeUndefined();
      expect(metadata.xmp).toBeUndefined();
      expect(file.includes(GPS_MARKER)).toBe(false);
      expect(file.includes(DESCRIPTION_MARKER)).toBe(false);
      expect(file.includes('TestPhone')).toBe(false);
    }
  });

  it('turns a photo upright by its EXIF orientation before dropping the EXIF', async () => {
    // Stored 60 × 40 with "rotate 90° clockwise to display": the picture is 40 × 60 as the user sees it.
    const sideways = await sharp(await jpegFixture(60, 40))
      .withMetadata({ orientation: 6 })
      .toBuffer();
    const { picture } = await userWithPicture(ctx.app, sideways);
    expect(picture).toMatchObject({ width: 40, height: 60 });
    const [full] = await served(picture);
    expect(full?.metadata).toMatchObject({ width: 40, height: 60 });
    expect(full?.metadata.orientation).toBeUndefined();
  });

  it('drops anything appended after the image (a PHP script in a real png)', async () => {
    const { picture } = await userWithPicture(ctx.app, await pngWithAppendedPhp());
    for (const file of await served(picture)) expect(file.body.includes(PHP_PAYLOAD)).toBe(false);
    for (const file of await storedFiles()) expect(file.includes(PHP_PAYLOAD)).toBe(false);
  });

  it('judges the bytes, not the name or declared type: a jpeg named .gif is stored as jpeg', async () => {
    const me = await registerUser(ctx.app);
    const res = await updatePicture(ctx.app, me.token, await jpegFixture(100, 100), {
      filename: 'avatar.gif',
      contentType: 'image/gif',
    });
    const picture = expectOk<{ user: { profile_picture: Picture } }>(res).user.profile_picture;
    expect(picture.url).toMatch(/\.jpg$/);
    expect((await served(picture))[0]?.res.headers['content-type']).toBe('image/jpeg');
  });
});
