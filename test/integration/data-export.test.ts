import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { newId } from '../../src/lib/ids.js';
import { useTestApp } from '../helpers/app.js';
import { download, type ExportView, requestExport, exportStatus as status } from '../helpers/data-export.js';
import { backends } from '../helpers/database.js';
import { bearer, registerUser } from '../helpers/factories.js';
import { expectOk, expectValidationError, postForm } from '../helpers/http.js';
import { jpegFixture, pngFixture } from '../helpers/images.js';
import { outboxFor } from '../helpers/mail.js';
import { updatePicture } from '../helpers/media.js';
import { createPost, type Post, postAction } from '../helpers/posts.js';
import { eventCounts, eventsOf } from '../helpers/security-events.js';
import { readZip } from '../helpers/zip.js';

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
    expect(await eventCounts(ctx.database.handle, user.id)).toEqual({ account_created: 1 });
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
    await ctx.dataExports.idle();
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
  }, 60_000);

  it('mails in Korean when asked in Korean', async () => {
    const user = await registerUser(ctx.app);
    const res = await postForm(
      ctx.app,
      '/v1/user/export',
      { current_password: user.password },
      { ...bearer(user.token), 'accept-language': 'ko-KR,ko;q=0.9' },
    );
    expect(res.statusCode).toBe(202);
    await ctx.dataExports.idle();
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
    // Answered with the export another request started: none of them started one to log.
    expect(await eventCounts(ctx.database.handle, user.id)).toEqual({ account_created: 1 });
  });

  it('lets racing requests make at most one pending export', async () => {
    const user = await registerUser(ctx.app);
    const answers = await Promise.all(Array.from({ length: 6 }, () => requestExport(ctx, user)));
    const ids = answers.map((res) => (res.json() as { data: { export: ExportView } }).data.export.id);
    await ctx.dataExports.idle();
    const rows = await ctx.database.handle.db
      .selectFrom('data_exports')
      .select(['id', 'status'])
      .where('user_id', '=', user.id)
      .execute();
    // Each export any request made was answered; none was left pending twice.
    expect(new Set(rows.map((row) => row.id))).toEqual(new Set(ids));
    expect(rows.every((row) => row.status === 'ready')).toBe(true);
    // One `export_requested` per export started, with the request's address.
    const logged = (await eventsOf(ctx.database.handle, user.id)).filter(
      (e) => e.type === 'export_requested',
    );
    expect(logged).toHaveLength(rows.length);
    expect(logged[0]?.ip).toBe('127.0.0.1');
  });
});
