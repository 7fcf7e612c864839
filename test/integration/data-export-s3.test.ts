import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeTestApp, createTestApp, type TestApp } from '../helpers/app.js';
import { download, exportFiles, NOT_FOUND, readyExport } from '../helpers/data-export.js';
import { backends } from '../helpers/database.js';
import { registerUser } from '../helpers/factories.js';
import { expectError, expectOk } from '../helpers/http.js';
import { pngFixture } from '../helpers/images.js';
import { updatePicture } from '../helpers/media.js';
import { type FakeS3, startFakeS3 } from '../helpers/s3.js';
import { readZip } from '../helpers/zip.js';

/** Exports kept in an S3-compatible bucket (s3rver): the download link redirects to the bucket. */
describe.each(backends)('%s: data export on S3-compatible storage', (backend) => {
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

  it('answers the link with a 302 to a short-lived presigned URL of the zip in the bucket', async () => {
    const user = await registerUser(ctx.app);
    expectOk(await updatePicture(ctx.app, user.token, await pngFixture()));
    const ready = await readyExport(ctx, user);
    expect(ready.status).toBe('ready');
    // Kept in the bucket under exports/, never on the instance's disk.
    const zips = (await s3.keys()).filter((key) => key.startsWith('exports/'));
    expect(zips).toEqual([expect.stringMatching(new RegExp(`^exports/${ready.id}-[A-Za-z0-9_-]+\\.zip$`))]);
    expect(await exportFiles(ctx)).toEqual([]);

    const res = await download(ctx, ready.download_url ?? '');
    expect(res.statusCode).toBe(302);
    expect(res.body).toBe('');
    expect(res.headers['cache-control']).toBe('private, no-store');
    expect(res.headers['referrer-policy']).toBe('no-referrer');
    const location = new URL(String(res.headers.location));
    expect(`${location.origin}${location.pathname}`).toBe(`${s3.endpoint}/${s3.bucket}/${zips[0]}`);
    expect(location.searchParams.get('X-Amz-Algorithm')).toBe('AWS4-HMAC-SHA256');
    expect(Number(location.searchParams.get('X-Amz-Expires'))).toBe(300);
    expect(location.searchParams.get('response-content-disposition')).toBe(
      `attachment; filename="accounts-export-${ready.id}.zip"`,
    );

    // Followed as a browser would: the bucket answers the zip itself, byte for byte the stored one.
    // (s3rver does not check SigV4 signatures; S3 and MinIO refuse the URL once altered or expired.)
    const zipRes = await fetch(location);
    expect(zipRes.status).toBe(200);
    const bytes = Buffer.from(await zipRes.arrayBuffer());
    expect(bytes.equals(await s3.get(zips[0] ?? ''))).toBe(true);
    const zip = await readZip(bytes);
    expect(zip.names).toEqual(
      expect.arrayContaining(['account.json', 'consents.json', 'security_events.json', 'posts.json']),
    );
    const account = JSON.parse((await zip.read('account.json')).toString('utf8'));
    expect(account.profile).toMatchObject({ id: user.id, email: user.email });
    const pictures = zip.names.filter((name) => name.startsWith('images/profile/'));
    expect(pictures.length).toBeGreaterThanOrEqual(1);

    // The bucket names and types it as the presigned parameters say (s3rver, like S3, applies them).
    expect(zipRes.headers.get('content-type')).toBe('application/zip');
    expect(zipRes.headers.get('content-disposition')).toBe(
      `attachment; filename="accounts-export-${ready.id}.zip"`,
    );
  }, 60_000);

  it('caps the presigned URL at the export’s expiry; refuses a wrong token and a zip gone, with a 404', async () => {
    const user = await registerUser(ctx.app);
    const ready = await readyExport(ctx, user);
    const url = new URL(ready.download_url ?? '');
    url.searchParams.set('token', 'A'.repeat(43));
    expectError(await download(ctx, url.toString()), ...NOT_FOUND);

    // An export about to expire: the presigned URL dies with it, not five minutes later.
    await ctx.database.handle.db
      .updateTable('data_exports')
      .set({ expires_at: sql<Date>`now() + interval '100 seconds'` })
      .where('id', '=', ready.id)
      .execute();
    const late = await download(ctx, ready.download_url ?? '');
    expect(late.statusCode).toBe(302);
    const expires = Number(new URL(String(late.headers.location)).searchParams.get('X-Amz-Expires'));
    expect(expires).toBeGreaterThanOrEqual(1);
    expect(expires).toBeLessThanOrEqual(100);

    const [key] = (await s3.keys()).filter((k) => k.startsWith(`exports/${ready.id}-`));
    expect(key).toBeDefined();
    await s3.delete(key ?? '');
    expectError(await download(ctx, ready.download_url ?? ''), ...NOT_FOUND);
  }, 60_000);
});
