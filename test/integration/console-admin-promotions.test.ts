import type { LightMyRequestResponse } from 'fastify';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { backends } from '../helpers/database.js';
import { registerUser } from '../helpers/factories.js';
import { expectError, expectOk, expectValidationError, postMultipart } from '../helpers/http.js';
import { pngFixture } from '../helpers/images.js';
import { buildTestServices } from '../helpers/services.js';
import { enrolledStaff, signedInStaff, testClock, useConsoleApp } from '../helpers/staff.js';

const FORBIDDEN = ['AccessDeniedHttpException', 'This action is unauthorized.'] as const;
const NOT_FOUND = ['NotFoundHttpException', 'Not Found'] as const;
const IMAGE_URL = /^https?:\/\/[^/]+\/media\/banners\/[A-Za-z0-9_-]{22}\.png$/;

interface Banner {
  id: string;
  image_url: string;
  link_url: string | null;
  position: number;
  starts_at: string | null;
  ends_at: string | null;
}

describe.each(backends)('%s: the admin API on banners and inspirers', (backend) => {
  const clock = testClock();
  const ctx = useConsoleApp(backend, clock, { BANNER_LINK_SCHEMES: 'myapp' });

  const signedIn = async (role: string) => {
    const member = await enrolledStaff(ctx, clock, role);
    return { id: member.id, headers: await signedInStaff(ctx, clock, member) };
  };
  const get = (url: string, headers: Record<string, string>) =>
    ctx.app.inject({ method: 'GET', url: `/admin/v1${url}`, headers });
  const post = (url: string, headers: Record<string, string>, payload: Record<string, string> = {}) =>
    ctx.app.inject({ method: 'POST', url: `/admin/v1${url}`, headers, payload });
  const upload = async (headers: Record<string, string>, fields: Record<string, string>) =>
    postMultipart(
      ctx.app,
      '/admin/v1/banners',
      fields,
      {
        image: { filename: 'spring.png', contentType: 'image/png', data: await pngFixture(320, 100) },
      },
      headers,
    );
  /** What a member did, oldest first, as the access records keep it. */
  const recordsBy = async (staffId: string) => {
    const { records } = await buildTestServices(ctx).accessRecords.page({ actor: staffId }, 20);
    return records.reverse().map((r) => [r.action, r.subjectId, r.outcome, r.detail]);
  };

  it('lets content staff add a banner from an upload, change its link, order and schedule, and remove it', async () => {
    const content = await signedIn('content');
    const added = expectOk<Banner>(
      await upload(content.headers, {
        title: 'Spring festival',
        link_url: 'myapp://festival',
        position: '3',
        starts_at: '2099-03-01T00:00:00+09:00',
      }),
    );
    expect(added).toEqual({
      id: expect.any(String),
      title: 'Spring festival',
      image_url: expect.stringMatching(IMAGE_URL),
      link_url: 'myapp://festival',
      position: 3,
      starts_at: '2099-02-28T15:00:00.000Z',
      ends_at: null,
    });
    // Stored re-encoded, as profile pictures are: sharp reads the served file at its own size.
    const served = await ctx.app.inject({ method: 'GET', url: new URL(added.image_url).pathname });
    expect(served.statusCode).toBe(200);
    const { format, width, height } = await sharp(served.rawPayload).metadata();
    expect([format, width, height]).toEqual(['png', 320, 100]);

    const listed = expectOk<{ banners: unknown[] }>(await get('/banners?limit=100', content.headers));
    expect(listed.banners).toContainEqual({ ...added, state: 'scheduled' });

    const path = `/banners/${added.id}`;
    // The schedule is checked as it will be: an end before the kept start is refused.
    expectValidationError(await post(`${path}/update`, content.headers, { ends_at: '2099-02-01' }), {
      ends_at: ['The ends at must be a date after starts at.'],
    });
    const changed = expectOk<Banner>(
      await post(`${path}/update`, content.headers, { link_url: '', position: '-2', starts_at: '' }),
    );
    expect(changed).toEqual({ ...added, link_url: null, position: -2, starts_at: null });
    expect(expectOk(await post(`${path}/delete`, content.headers))).toEqual({ removed: true });
    expectError(await post(`${path}/delete`, content.headers), 404, ...NOT_FOUND);

    const banner = { banner_id: added.id };
    expect(await recordsBy(content.id)).toEqual([
      ['banner.create', null, 'ok', banner],
      ['banner.update', null, 'failed', { error: 'validation_failed' }],
      ['banner.update', null, 'ok', banner],
      ['banner.delete', null, 'ok', banner],
      ['banner.delete', null, 'failed', { error: 'not_found' }],
    ]);
  });

  it("holds the console to the command's rules: links, schedule, image and cursor each a 422 naming the field", async () => {
    const { headers } = await signedIn('admin');
    const refusals: Array<[LightMyRequestResponse, Record<string, string[]>]> = [
      [
        await upload(headers, { title: 'x', link_url: 'javascript:alert(1)' }),
        { link_url: ['The link url format is invalid.'] },
      ],
      [
        await upload(headers, { title: 'x', link_url: 'otherapp://x' }),
        { link_url: ['The link url format is invalid.'] },
      ],
      [
        await upload(headers, { title: 'x', starts_at: '2099-01-02', ends_at: '2099-01-01' }),
        { ends_at: ['The ends at must be a date after starts at.'] },
      ],
      [await upload(headers, { title: '' }), { title: ['The title field is required.'] }],
      [await post('/banners', headers, { title: 'No image' }), { image: ['The image field is required.'] }],
      [
        await postMultipart(
          ctx.app,
          '/admin/v1/banners',
          { title: 'x' },
          {
            image: { filename: 'a.png', contentType: 'image/png', data: Buffer.from('<?php echo 1;') },
          },
          headers,
        ),
        { image: ['The image must be an image.'] },
      ],
      [await get('/banners?cursor=nope', headers), { cursor: ['The selected cursor is invalid.'] }],
    ];
    for (const [res, fields] of refusals) expectValidationError(res, fields);
    expect(
      expectOk<Banner>(
        await post('/banners', headers, {
          title: 'By address',
          image_url: 'https://cdn.example.com/b.png',
          link_url: 'https://example.com/x',
        }),
      ),
    ).toMatchObject({ image_url: 'https://cdn.example.com/b.png', link_url: 'https://example.com/x' });
  });

  it.each([
    ['viewer', 403],
    ['support', 403],
  ])('lets %s read banners and inspirers and refuses every change with %i', async (role, status) => {
    const user = await registerUser(ctx.app);
    const { id, headers } = await signedIn(role);
    expectOk(await get('/banners', headers));
    expectOk(await get('/inspirers', headers));
    const someId = '0193a5c1-7d2e-7f00-8a11-3c4d5e6f7a8c';
    for (const res of [
      await upload(headers, { title: 'x' }),
      await post(`/banners/${someId}/update`, headers, { position: '1' }),
      await post(`/banners/${someId}/delete`, headers),
      await post('/inspirers', headers, { user: user.email }),
      await post('/inspirers/remove', headers, { user: user.email }),
    ]) {
      expectError(res, status, ...FORBIDDEN);
    }
    // Each refused change is an access record, as the change would have been (the inspirers' page, read,
    // is one too); the banners, nobody's data, are read unrecorded.
    const { records } = await buildTestServices(ctx).accessRecords.page({ actor: id }, 50);
    expect(records.map((record) => [record.action, record.outcome]).reverse()).toEqual([
      ['inspirers.view', 'ok'],
      ['banner.create', 'refused'],
      ['banner.update', 'refused'],
      ['banner.delete', 'refused'],
      ['user.inspirer.add', 'refused'],
      ['user.inspirer.remove', 'refused'],
    ]);
    expect(
      expectOk<{ profile: { is_inspirer: boolean } }>(await get(`/users/${user.id}`, headers)).profile
        .is_inspirer,
    ).toBe(false);
  });

  it('lets content staff make users inspirers by email or username, page them masked, and remove one, recorded with the user', async () => {
    const first = await registerUser(ctx.app);
    const second = await registerUser(ctx.app);
    const content = await signedIn('content');
    expect(
      expectOk(await post('/inspirers', content.headers, { user: first.email, reason: 'Spring picks' })),
    ).toEqual({
      id: first.id,
      username: first.username,
      is_inspirer: true,
    });
    expectOk(await post('/inspirers', content.headers, { user: second.username }));
    expectError(await post('/inspirers', content.headers, { user: 'nobody-at-all' }), 404, ...NOT_FOUND);
    expectValidationError(await post('/inspirers', content.headers, {}), {
      user: ['The user field is required.'],
    });

    // A keyset page at a time (limit 1), by username: both appear, in order, emails masked.
    const seen: Array<Record<string, unknown>> = [];
    let cursor: string | null = null;
    do {
      const query: string = cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`;
      const page = expectOk<{ inspirers: Array<Record<string, unknown>>; next_cursor: string | null }>(
        await get(`/inspirers?limit=1${query}`, content.headers),
      );
      expect(page.inspirers.length).toBeLessThanOrEqual(1);
      seen.push(...page.inspirers);
      cursor = page.next_cursor;
    } while (cursor !== null);
    const mine = [first, second]
      .sort((a, b) => a.username.toLowerCase().localeCompare(b.username.toLowerCase()))
      .map((user) => ({
        id: user.id,
        email: 'r***@example.com',
        username: user.username,
        disabled_at: null,
      }));
    expect(seen.filter((row) => row.id === first.id || row.id === second.id)).toEqual(mine);

    expect(expectOk(await post('/inspirers/remove', content.headers, { user: first.id }))).toEqual({
      id: first.id,
      username: first.username,
      is_inspirer: false,
    });
    const records = await recordsBy(content.id);
    expect(records.filter(([action]) => action !== 'inspirers.view')).toEqual([
      ['user.inspirer.add', first.id, 'ok', {}],
      ['user.inspirer.add', second.id, 'ok', {}],
      ['user.inspirer.remove', first.id, 'ok', {}],
    ]);
    expect(
      records.some(
        ([action, , , detail]) => action === 'inspirers.view' && (detail as { rows: number }).rows === 1,
      ),
    ).toBe(true);
  });
});
