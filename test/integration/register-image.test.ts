import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.js';
import { backends } from '../helpers/database.js';
import { registrationForm } from '../helpers/factories.js';
import { expectOk, expectValidationError, type FilePart, postMultipart } from '../helpers/http.js';
import { image, pngHeaderOnly } from '../helpers/image-formats.js';

const URL = '/v1/auth/register';

function picture(
  data: Buffer,
  filename = 'me.png',
  contentType = 'image/png',
): { profile_picture: FilePart } {
  return { profile_picture: { filename, contentType, data } };
}

describe.each(backends)('%s: register with a profile_picture', (backend) => {
  const ctx = useTestApp(backend);

  it.each([
    ['png', 'image/png'],
    ['jpeg', 'image/jpeg'],
    ['gif', 'image/gif'],
  ] as const)('accepts a real %s', async (format, type) => {
    const res = await postMultipart(
      ctx.app,
      URL,
      registrationForm(),
      picture(await image(format), `me.${format}`, type),
    );
    expectOk(res);
  });

  it('judges the type by the bytes: a PNG named .txt and declared text/plain is accepted', async () => {
    const res = await postMultipart(
      ctx.app,
      URL,
      registrationForm(),
      picture(await image('png'), 'notes.txt', 'text/plain'),
    );
    expectOk(res);
  });

  it('refuses text named .png and declared image/png', async () => {
    const res = await postMultipart(
      ctx.app,
      URL,
      registrationForm(),
      picture(Buffer.from('<?php system($_GET["c"]); ?>')),
    );
    expectValidationError(res, { profile_picture: ['The profile picture must be an image.'] });
  });

  it('refuses an empty file that has a name', async () => {
    const res = await postMultipart(ctx.app, URL, registrationForm(), picture(Buffer.alloc(0)));
    expectValidationError(res, { profile_picture: ['The profile picture must be an image.'] });
  });

  it.each(['webp', 'tiff'] as const)('refuses a real %s declared as image/png', async (format) => {
    const res = await postMultipart(ctx.app, URL, registrationForm(), picture(await image(format)));
    expectValidationError(res, {
      profile_picture: ['The profile picture must be a file of type: jpeg, png, gif.'],
    });
  });

  it('refuses a pixel bomb (a tiny PNG declaring 50,000 × 50,000) without decoding it', async () => {
    const res = await postMultipart(ctx.app, URL, registrationForm(), picture(pngHeaderOnly(50_000, 50_000)));
    expectValidationError(res, { profile_picture: ['The profile picture has invalid image dimensions.'] });
  });

  it('refuses a picture sent as a text field', async () => {
    const res = await postMultipart(ctx.app, URL, { ...registrationForm(), profile_picture: 'me.png' });
    expectValidationError(res, { profile_picture: ['The profile picture must be a file.'] });
  });

  it('treats a file input left blank (empty part, no file name) as absent', async () => {
    const res = await postMultipart(
      ctx.app,
      URL,
      registrationForm(),
      picture(Buffer.alloc(0), '', 'application/octet-stream'),
    );
    expectOk(res);
  });

  it('reports the picture together with the other fields', async () => {
    const res = await postMultipart(
      ctx.app,
      URL,
      { ...registrationForm(), gender: '3' },
      picture(Buffer.from('not an image')),
    );
    expectValidationError(res, {
      gender: ['The selected gender is invalid.'],
      profile_picture: ['The profile picture must be an image.'],
    });
  });
});

describe.each(backends)('%s: register with a profile_picture under small limits', (backend) => {
  const ctx = useTestApp(backend, { FILE_SIZE_LIMIT: '2kb', IMAGE_MAX_PIXELS: '100' });

  it('refuses a file over FILE_SIZE_LIMIT as a 422 on the field, not a dropped request', async () => {
    const res = await postMultipart(ctx.app, URL, registrationForm(), picture(randomBytes(4096)));
    expectValidationError(res, {
      profile_picture: ['The profile picture may not be greater than 2 kilobytes.'],
    });
  });

  it('accepts an image of exactly IMAGE_MAX_PIXELS and refuses a larger one', async () => {
    const small = await image('png', 10, 10);
    const large = await image('png', 11, 10);
    expect(large.length).toBeLessThan(2048);
    expectOk(await postMultipart(ctx.app, URL, registrationForm(), picture(small)));
    expectValidationError(await postMultipart(ctx.app, URL, registrationForm(), picture(large)), {
      profile_picture: ['The profile picture has invalid image dimensions.'],
    });
  });
});
