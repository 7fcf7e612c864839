import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.js';
import { backends } from '../helpers/database.js';
import { bearer, registerUser, unique } from '../helpers/factories.js';
import { expectError, expectOk, expectValidationError, postForm, UNAUTHENTICATED } from '../helpers/http.js';
import {
  elevenMegabytes,
  gifFixture,
  jpegFixture,
  phpScript,
  pixelBomb,
  pngFixture,
  truncatedNoisyJpeg,
  truncatedPng,
  webpFixture,
} from '../helpers/images.js';
import {
  failWritesOfUsernames,
  filesUnder,
  type Picture,
  pictureUrls,
  registerFields,
  registerWithPicture,
  servedPicture,
  updatePicture,
  userWithPicture,
} from '../helpers/media.js';

describe.each(backends)('%s: profile pictures refused, replaced and protected', (backend) => {
  const ctx = useTestApp(backend);
  const mediaDir = () => path.join(ctx.dataDir, 'media');

  const fetchMedia = (url: string) => ctx.app.inject({ method: 'GET', url });

  const served = (picture: Picture) => servedPicture(ctx.app, picture);

  describe('refused files, on register and on update, leaving nothing stored', () => {
    const cases: Array<
      [string, () => Promise<Buffer> | Buffer, { filename: string; contentType: string }, string]
    > = [
      [
        'a PHP script named .png',
        phpScript,
        { filename: 'avatar.png', contentType: 'image/png' },
        'The profile picture must be an image.',
      ],
      [
        'a truncated png',
        truncatedPng,
        { filename: 'cut.png', contentType: 'image/png' },
        'The profile picture must be an image.',
      ],
      [
        // Its header probes fine; only decoding every byte (sharp's failOn: 'error') finds the missing 40%.
        'a noisy jpeg truncated at 60%',
        truncatedNoisyJpeg,
        { filename: 'cut.jpg', contentType: 'image/jpeg' },
        'The profile picture must be an image.',
      ],
      [
        'a pixel bomb (50,000 × 50,000 declared)',
        pixelBomb,
        { filename: 'bomb.png', contentType: 'image/png' },
        'The profile picture has invalid image dimensions.',
      ],
      [
        'an 11 MB file',
        elevenMegabytes,
        { filename: 'huge.jpg', contentType: 'image/jpeg' },
        'The profile picture may not be greater than 10240 kilobytes.',
      ],
      [
        'a webp',
        webpFixture,
        { filename: 'me.jpg', contentType: 'image/jpeg' },
        'The profile picture must be a file of type: jpeg, png, gif.',
      ],
    ];

    it.each(cases)('%s', async (_name, make, file, message) => {
      const data = await make();
      const me = await registerUser(ctx.app);
      const before = await filesUnder(mediaDir());
      expectValidationError(await updatePicture(ctx.app, me.token, data, file), {
        profile_picture: [message],
      });
      const fields = registerFields();
      expectValidationError(await registerWithPicture(ctx.app, data, file, fields), {
        profile_picture: [message],
      });
      expect(await filesUnder(mediaDir())).toEqual(before);
      // The refused registration created no account.
      expectValidationError(
        await postForm(ctx.app, '/v1/auth/login/email', { email: fields.email, password: 'x' }),
        {
          email: ['The selected email is invalid.'],
        },
      );
    });

    it('requires the file on update, and a file rather than text', async () => {
      const me = await registerUser(ctx.app);
      expectValidationError(await postForm(ctx.app, '/v1/user/profile-image/update', {}, bearer(me.token)), {
        profile_picture: ['The profile picture field is required.'],
      });
      expectValidationError(
        await postForm(
          ctx.app,
          '/v1/user/profile-image/update',
          { profile_picture: 'hello' },
          bearer(me.token),
        ),
        { profile_picture: ['The profile picture must be a file.'] },
      );
    });
  });

  it('replaces a picture: the new one is served, the old files are gone', async () => {
    const me = await userWithPicture(ctx.app, await pngFixture(100, 100));
    const oldUrls = pictureUrls(me.picture);
    const res = await updatePicture(ctx.app, me.token, await jpegFixture(300, 200));
    const { user } = expectOk<{ user: { id: string; profile_picture: Picture } }>(res);
    expect(user).toMatchObject({ id: me.id, profile_picture: { width: 300, height: 200 } });
    await served(user.profile_picture);
    for (const url of oldUrls) {
      expectError(await fetchMedia(url), 404, 'NotFoundHttpException', 'Not Found', []);
      expect(await filesUnder(mediaDir())).not.toContain(url.replace('/media/', ''));
    }
  });

  it('removes the new files when the registration transaction fails', async () => {
    await failWritesOfUsernames(ctx.database.handle.db, 'failreg');
    const before = await filesUnder(mediaDir());
    const fields = { ...registerFields(), username: `failreg${unique()}` };
    const res = await registerWithPicture(ctx.app, await jpegFixture(), {}, fields);
    expectError(res, 500, 'InternalServerError', 'Failed to commit transaction.', []);
    expect(await filesUnder(mediaDir())).toEqual(before);
  });

  it('removes the new files and keeps the old picture when the update transaction fails', async () => {
    const me = await registerUser(ctx.app, { username: `failupd${unique()}` });
    const withOld = expectOk<{ user: { profile_picture: Picture } }>(
      await updatePicture(ctx.app, me.token, await pngFixture(50, 50)),
    ).user.profile_picture;
    const before = await filesUnder(mediaDir());
    await failWritesOfUsernames(ctx.database.handle.db, 'failupd');
    const res = await updatePicture(ctx.app, me.token, await jpegFixture());
    expectError(res, 500, 'InternalServerError', 'Failed to commit transaction.', []);
    expect(await filesUnder(mediaDir())).toEqual(before);
    await served(withOld);
    const got = expectOk<{ user: { profile_picture: Picture } }>(
      await ctx.app.inject({ method: 'GET', url: '/v1/user/get', headers: bearer(me.token) }),
    );
    expect(got.user.profile_picture).toEqual(withOld);
  });

  it("never changes another user's picture", async () => {
    const me = await userWithPicture(ctx.app, await pngFixture(60, 60));
    const other = await userWithPicture(ctx.app, await pngFixture(70, 70));
    expectOk(await updatePicture(ctx.app, me.token, await gifFixture(40, 40)));
    await served(other.picture);
    const got = expectOk<{ user: { profile_picture: Picture } }>(
      await ctx.app.inject({ method: 'GET', url: '/v1/user/get', headers: bearer(other.token) }),
    );
    expect(got.user.profile_picture).toEqual(other.picture);
  });

  it('is a 401 without a token, with an unknown one and with a revoked one (nothing stored)', async () => {
    const me = await registerUser(ctx.app);
    expectOk(await postForm(ctx.app, '/v1/auth/logout', {}, bearer(me.token)));
    const before = await filesUnder(mediaDir());
    for (const token of [undefined, 'garbage-token', me.token]) {
      expectError(await updatePicture(ctx.app, token, await pngFixture(10, 10)), 401, ...UNAUTHENTICATED);
    }
    expect(await filesUnder(mediaDir())).toEqual(before);
  });

  it('serves only keys of its own shape: no traversal, no listing', async () => {
    for (const url of [
      '/media/',
      '/media/profile-pictures/',
      '/media/../package.json',
      '/media/%2e%2e/%2e%2e/package.json',
      '/media/profile-pictures/..%2F..%2Fpackage.json',
      '/media/profile-pictures/AAAAAAAAAAAAAAAAAAAAAA.jpg',
      '/media/pglite/PG_VERSION',
    ]) {
      const res = await fetchMedia(url);
      expect(res.statusCode, url).toBe(404);
      expect(res.json()).toEqual({
        meta: { code: 404, error_type: 'NotFoundHttpException', error_message: 'Not Found' },
        data: [],
      });
    }
  });
});
