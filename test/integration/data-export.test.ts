import { readdir } from 'node:fs/promises';
import path from 'node:path';
import type { LightMyRequestResponse } from 'fastify';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { newId } from '../../src/lib/ids.js';
import { type TestApp, useTestApp } from '../helpers/app.js';
import { backends } from '../helpers/database.js';
import { bearer, type RegisteredUser, registerUser } from '../helpers/factories.js';
import { expectError, expectOk, expectValidationError, postForm } from '../helpers/http.js';
import { jpegFixture, pngFixture } from '../helpers/images.js';
import { outboxFor } from '../helpers/mail.js';
import { updatePicture } from '../helpers/media.js';
import { createPost, type Post, postAction } from '../helpers/posts.js';
import { readZip } from '../helpers/zip.js';

interface ExportView {
  id: string;
  status: string;
  download_url: string | null;
  expires_at: string | null;
}

const NOT_FOUND = [404, 'NotFoundHttpException', 'Not Found', []] as const;

function requestExport(ctx: TestApp, user: RegisteredUser, body: Record<string, string> = {}) {
  return postForm(
    ctx.app,
    '/v1/user/export',
    { current_password: user.password, ...body },
    bearer(user.token),
  );
}

/** Starts an export (202) and waits for the builder; returns the export as the status endpoint shows it. */
async function readyExport(ctx: TestApp, user: RegisteredUser): Promise<ExportView> {
  const res = await requestExport(ctx, user);
  expect(res.statusCode, res.body).toBe(202);
  const started = (res.json() as { data: { export: ExportView } }).data.export;
  await ctx.app.dataExports.idle();
  return status(ctx, user, started.id);
}

async function status(ctx: TestApp, user: RegisteredUser, id: string): Promise<ExportView> {
  const res = await ctx.app.inject({
    method: 'GET',
    url: `/v1/user/export/${id}`,
    headers: bearer(user.token),
  });
  return expectOk<{ export: ExportView }>(res).export;
}

/** GETs a download URL as a mail client would: no API token, no cookie. */
function download(ctx: TestApp, url: string): Promise<LightMyRequestResponse> {
  const { pathname, search } = new URL(url);
  return ctx.app.inject({ method: 'GET', url: `${pathname}${search}` });
}

async function exportFiles(ctx: TestApp): Promise<string[]> {
  return readdir(path.join(ctx.dataDir, 'exports')).catch(() => []);
}

describe.each(backends)('%s: user/export', (backend) => {
  const ctx = useTestApp(backend);

  it('refuses without re-authentication, and with a wrong password', async () => {
    const user = await registerUser(ctx.app);
    expectValidationError(await postForm(ctx.app, '/v1/user/export', {}, bearer(user.token)), {
      current_password: ['The current password field is required.'],
    });
    expectValidationError(await requestExport(ctx, user, { current_password: 'not-the-password' }), {
      current_password: ['The current password is incorrect.'],
    });
    const rows = await ctx.database.handle.db
      .selectFrom('data_exports')
      .selectAll()
      .where('user_id', '=', user.id)
      .execute();
    expect(rows).toEqual([]);
  });

  it('builds one zip of the account, its posts, likes and images, downloadable without the API token', async () => {
    const user = await registerUser(ctx.app);
    expectOk(await updatePicture(ctx.app, user.token, await pngFixture()));
    expectOk(
      await postForm(
        ctx.app,
        '/v1/user/device/update',
        { device_id: 'phone-1', platform: 'ios', push_token: `push-secret-${user.id}` },
        bearer(user.token),
      ),
    );
    const image = { filename: 'a.jpg', contentType: 'image/jpeg', data: await jpegFixture() };
    const post = expectOk<{ post: Post }>(await createPost(ctx.app, user.token, 'my words', [image])).post;
    expectOk(await createPost(ctx.app, user.token, 'second'));
    const other = await registerUser(ctx.app);
    const theirs = expectOk<{ post: Post }>(await createPost(ctx.app, other.token, 'theirs')).post;
    expectOk(await postAction(ctx.app, user.token, theirs.id, 'like'));

    const res = await requestExport(ctx, user);
    expect(res.statusCode).toBe(202);
    const started = res.json() as { meta: { code: number }; data: { export: ExportView } };
    expect(started.meta).toEqual({ code: 202 });
    expect(started.data.export).toEqual({
      id: expect.any(String),
      status: 'pending',
      download_url: null,
      expires_at: null,
    });
    await ctx.app.dataExports.idle();
    const ready = await status(ctx, user, started.data.export.id);
    expect(ready.status).toBe('ready');
    expect(ready.download_url).toMatch(
      new RegExp(`/(dev|v1)/export/download/${ready.id}\\?token=[A-Za-z0-9_-]{43}$`),
    );
    const hours = (Date.parse(ready.expires_at ?? '') - Date.now()) / 3_600_000;
    expect(hours).toBeGreaterThan(23.9);
    expect(hours).toBeLessThanOrEqual(24);

    const zipRes = await download(ctx, ready.download_url ?? '');
    expect(zipRes.statusCode).toBe(200);
    expect(zipRes.headers['content-type']).toBe('application/zip');
    expect(zipRes.headers['content-disposition']).toBe(
      `attachment; filename="accounts-export-${ready.id}.zip"`,
    );
    const zip = await readZip(zipRes.rawPayload);
    expect(zip.names.slice(0, 2)).toEqual(['account.json', ...zip.names.slice(1, 2)]);
    expect(zip.names).toEqual(expect.arrayContaining(['account.json', 'posts.json', 'likes.json']));

    const account = JSON.parse((await zip.read('account.json')).toString('utf8'));
    expect(account.profile).toMatchObject({ id: user.id, email: user.email, username: user.username });
    expect(account.email_verification).toEqual({ email: user.email, verified: false });
    expect(account.devices).toEqual([
      expect.objectContaining({ device_id: 'phone-1', has_push_token: true }),
    ]);
    expect(account.api_tokens).toEqual([
      expect.objectContaining({ id: expect.any(String), created_at: expect.any(String) }),
    ]);
    expect(account.linked_providers).toEqual([]);

    const posts = JSON.parse((await zip.read('posts.json')).toString('utf8'));
    expect(posts.map((entry: { text: string }) => entry.text)).toEqual(['my words', 'second']);
    expect(posts[0].id).toBe(post.id);
    const likes = JSON.parse((await zip.read('likes.json')).toString('utf8'));
    expect(likes).toEqual([{ post_id: theirs.id, liked_at: expect.any(String) }]);

    // Every image file: the picture (and its thumbnails), the post's image; each one a real image.
    const profileImages = zip.names.filter((name) => name.startsWith('images/profile/'));
    expect(profileImages.length).toBeGreaterThanOrEqual(1);
    expect(posts[0].images[0].files.length).toBeGreaterThanOrEqual(1);
    for (const name of [...profileImages, ...posts[0].images[0].files]) {
      expect(zip.names).toContain(name);
      expect((await zip.read(name)).length, name).toBeGreaterThan(100);
    }

    // No secret anywhere in it: no token, token hash, password hash or push token.
    const everything = Buffer.concat(
      await Promise.all(zip.names.filter((n) => n.endsWith('.json')).map(zip.read)),
    );
    const text = everything.toString('utf8');
    for (const secret of [user.token, `push-secret-${user.id}`, 'argon2', 'token_hash', 'password_hash']) {
      expect(text).not.toContain(secret);
    }

    // The mail carries the same link (English by default).
    const mail = (await outboxFor(ctx.database.handle, user.email)).find(
      (row) => row.kind === 'data_export_ready',
    );
    expect(mail?.subject).toBe('Your data is ready to download');
    expect(mail?.text).toContain(ready.download_url);
  });

  it('mails in Korean when asked in Korean', async () => {
    const user = await registerUser(ctx.app);
    const res = await postForm(
      ctx.app,
      '/v1/user/export',
      { current_password: user.password },
      { ...bearer(user.token), 'accept-language': 'ko-KR,ko;q=0.9' },
    );
    expect(res.statusCode).toBe(202);
    await ctx.app.dataExports.idle();
    const mail = (await outboxFor(ctx.database.handle, user.email)).find(
      (row) => row.kind === 'data_export_ready',
    );
    expect(mail?.subject).toBe('요청하신 데이터가 준비되었습니다');
  });

  it('answers the pending export while one is pending, however many requests race', async () => {
    const user = await registerUser(ctx.app);
    // Pending and held by another instance's build (its lease an hour ahead).
    const held = newId();
    await ctx.database.handle.db
      .insertInto('data_exports')
      .values({
        id: held,
        user_id: user.id,
        locale: 'en',
        next_attempt_at: sql<Date>`now() + interval '1 hour'`,
      })
      .execute();
    const answers = await Promise.all(Array.from({ length: 6 }, () => requestExport(ctx, user)));
    for (const res of answers) {
      expect(res.statusCode, res.body).toBe(202);
      expect((res.json() as { data: { export: ExportView } }).data.export).toMatchObject({
        id: held,
        status: 'pending',
      });
    }
    const rows = await ctx.database.handle.db
      .selectFrom('data_exports')
      .select('id')
      .where('user_id', '=', user.id)
      .execute();
    expect(rows.map((row) => row.id)).toEqual([held]);
  });

  it('lets racing requests make at most one pending export', async () => {
    const user = await registerUser(ctx.app);
    const answers = await Promise.all(Array.from({ length: 6 }, () => requestExport(ctx, user)));
    const ids = answers.map((res) => (res.json() as { data: { export: ExportView } }).data.export.id);
    await ctx.app.dataExports.idle();
    const rows = await ctx.database.handle.db
      .selectFrom('data_exports')
      .select(['id', 'status'])
      .where('user_id', '=', user.id)
      .execute();
    // Each export any request made was answered; none was left pending twice.
    expect(new Set(rows.map((row) => row.id))).toEqual(new Set(ids));
    expect(rows.every((row) => row.status === 'ready')).toBe(true);
  });

  it("keeps each user's exports their own", async () => {
    const mine = await registerUser(ctx.app);
    const theirs = await registerUser(ctx.app);
    const myExport = await readyExport(ctx, mine);
    const theirExport = await readyExport(ctx, theirs);
    // Their id with my token: the same 404 as an unknown or malformed id.
    for (const id of [theirExport.id, newId(), 'not-an-id']) {
      expectError(
        await ctx.app.inject({ method: 'GET', url: `/v1/user/export/${id}`, headers: bearer(mine.token) }),
        ...NOT_FOUND,
      );
    }
    // My link's token on their id, no token, a wrong one, an array: refused alike.
    const token = new URL(myExport.download_url ?? '').searchParams.get('token') ?? '';
    for (const query of [`?token=${token}`, '', '?token=', `?token=${'A'.repeat(43)}`, `?token[]=${token}`]) {
      expectError(
        await ctx.app.inject({ method: 'GET', url: `/v1/export/download/${theirExport.id}${query}` }),
        ...NOT_FOUND,
      );
    }
    expect((await download(ctx, myExport.download_url ?? '')).statusCode).toBe(200);
  });

  it('expires: the link is refused, then the zip is removed', async () => {
    const user = await registerUser(ctx.app);
    const ready = await readyExport(ctx, user);
    const row = await ctx.database.handle.db
      .selectFrom('data_exports')
      .selectAll()
      .where('id', '=', ready.id)
      .executeTakeFirstOrThrow();
    expect(await exportFiles(ctx)).toContain(row.file_key);
    await ctx.database.handle.db
      .updateTable('data_exports')
      .set({ expires_at: sql<Date>`now() - interval '1 minute'` })
      .where('id', '=', ready.id)
      .execute();
    expectError(await download(ctx, ready.download_url ?? ''), ...NOT_FOUND);
    expect(await status(ctx, user, ready.id)).toMatchObject({ status: 'expired', download_url: null });

    expect(await ctx.app.dataExports.expireDue()).toBeGreaterThanOrEqual(1);
    expect(await exportFiles(ctx)).not.toContain(row.file_key);
    const after = await ctx.database.handle.db
      .selectFrom('data_exports')
      .selectAll()
      .where('id', '=', ready.id)
      .executeTakeFirstOrThrow();
    expect(after).toMatchObject({ status: 'expired', file_key: null });
    expectError(await download(ctx, ready.download_url ?? ''), ...NOT_FOUND);
    // A new export may be asked for (limits are off here).
    expect((await requestExport(ctx, user)).statusCode).toBe(202);
    await ctx.app.dataExports.idle();
  });

  it('builds an export a crashed instance left pending on the next pass', async () => {
    const user = await registerUser(ctx.app);
    const orphan = newId();
    // Claimed by an instance that died: its lease ran out a minute ago.
    await ctx.database.handle.db
      .insertInto('data_exports')
      .values({
        id: orphan,
        user_id: user.id,
        locale: 'en',
        attempts: 1,
        next_attempt_at: sql<Date>`now() - interval '1 minute'`,
      })
      .execute();
    expect(await ctx.app.dataExports.buildDue()).toBeGreaterThanOrEqual(1);
    expect(await status(ctx, user, orphan)).toMatchObject({ status: 'ready' });
  });

  it('is erased with the account, files included', async () => {
    const user = await registerUser(ctx.app);
    const ready = await readyExport(ctx, user);
    const row = await ctx.database.handle.db
      .selectFrom('data_exports')
      .selectAll()
      .where('id', '=', ready.id)
      .executeTakeFirstOrThrow();
    expectOk(
      await postForm(ctx.app, '/v1/user/delete', { current_password: user.password }, bearer(user.token)),
    );
    expect(await exportFiles(ctx)).not.toContain(row.file_key);
    const rows = await ctx.database.handle.db
      .selectFrom('data_exports')
      .select('id')
      .where('user_id', '=', user.id)
      .execute();
    expect(rows).toEqual([]);
    expectError(await download(ctx, ready.download_url ?? ''), ...NOT_FOUND);
  });
});

describe.each(backends)('%s: user/export rate limit', (backend) => {
  const ctx = useTestApp(backend, { RATE_LIMIT_ENABLED: 'true', RATE_LIMIT_KEY_PREFIX: `export-${newId()}` });

  it('allows one new export per user per hour (a 429 after that), the pending one free', async () => {
    const user = await registerUser(ctx.app);
    const first = await requestExport(ctx, user);
    expect(first.statusCode).toBe(202);
    await ctx.app.dataExports.idle();
    const res = await requestExport(ctx, user);
    expect(res.statusCode).toBe(429);
    expect(res.json()).toEqual({
      meta: { code: 429, error_type: 'TooManyRequestsHttpException', error_message: 'Too Many Attempts.' },
      data: { retry_after: expect.any(Number) },
    });
    const rows = await ctx.database.handle.db
      .selectFrom('data_exports')
      .select('id')
      .where('user_id', '=', user.id)
      .execute();
    expect(rows).toHaveLength(1);
    // Another user has their own allowance.
    expect((await requestExport(ctx, await registerUser(ctx.app))).statusCode).toBe(202);
    await ctx.app.dataExports.idle();
  });
});
