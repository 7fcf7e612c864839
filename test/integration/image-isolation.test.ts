import { getPriority } from 'node:os';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeTestApp, createTestApp, type TestApp, useTestApp } from '../helpers/app.js';
import { expectTooManyRequests } from '../helpers/client-requests.js';
import { backends, processBackend } from '../helpers/database.js';
import { bearer, registerUser } from '../helpers/factories.js';
import { expectError, expectOk, expectValidationError, postForm, postMultipart } from '../helpers/http.js';
import { largeAnimatedGif, pixelBomb, pngFixture } from '../helpers/images.js';
import { logSink } from '../helpers/logs.js';
import { type Picture, updatePicture } from '../helpers/media.js';
import { threadPriorities } from '../helpers/threads.js';

const UNAVAILABLE = ['ServiceUnavailableHttpException', 'Service Unavailable', []] as const;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

let bigGif: Buffer;
beforeAll(async () => {
  bigGif = await largeAnimatedGif();
}, 120_000);

/**
 * Image decoding never shares a thread pool with password hashing: it runs in child processes of a bounded
 * pool (libuv's threadpool is per process, so a worker thread would not do), with a short queue.
 */
// Renderer processes, their queue and their crashes are the process's, whatever its database: one backend.
describe.each([processBackend])('%s: image rendering is isolated from logins', (backend) => {
  // The real argon2 cost: the comparison is about hashing and decoding competing for threads.
  const ctx = useTestApp(backend, { ARGON2_MEMORY_KIB: '19456', ARGON2_TIME_COST: '2', IMAGE_WORKERS: '1' });

  it('renders in another process, never in this one', async () => {
    const user = await registerUser(ctx.app);
    expectOk(await updatePicture(ctx.app, user.token, await pngFixture()));
    const pids = ctx.imageRenderer.renderedPids();
    expect(pids.length).toBeGreaterThan(0);
    expect(pids).not.toContain(process.pid);
    // Below the event loop like the hashing processes, every thread of it (a nice value is per thread).
    // (A renderer that has exited since has no threads to read: the live ones must be there.)
    const priorities = pids.flatMap(threadPriorities);
    expect(priorities.length).toBeGreaterThan(0);
    for (const priority of priorities) expect(priority).toBeGreaterThan(getPriority());
  });

  it('keeps only the first frame of a large animation', async () => {
    const user = await registerUser(ctx.app);
    const picture = expectOk<{ user: { profile_picture: Picture } }>(
      await updatePicture(ctx.app, user.token, bigGif, { filename: 'big.gif', contentType: 'image/gif' }),
    ).user.profile_picture;
    const stored = await ctx.app.inject({ method: 'GET', url: picture.url });
    const metadata = await sharp(stored.rawPayload).metadata();
    expect([metadata.format, metadata.width, metadata.height, metadata.pages ?? 1]).toEqual([
      'gif',
      2000,
      2000,
      1,
    ]);
  }, 120_000);

  it('answers every login while four large GIFs render, and reports the slowdown', async () => {
    const users = await Promise.all([1, 2, 3, 4, 5].map(() => registerUser(ctx.app)));
    const [loginUser, ...uploaders] = users as [(typeof users)[0], ...typeof users];
    const timeLogin = async () => {
      const started = performance.now();
      expectOk(
        await postForm(ctx.app, '/v1/auth/login/email', {
          email: loginUser.email,
          password: loginUser.password,
        }),
      );
      return performance.now() - started;
    };
    await timeLogin();
    const idle: number[] = [];
    for (let i = 0; i < 5; i++) idle.push(await timeLogin());

    let uploading = true;
    const uploads = Promise.all(
      uploaders.map((user) =>
        updatePicture(ctx.app, user.token, bigGif, { filename: 'big.gif', contentType: 'image/gif' }),
      ),
    ).finally(() => {
      uploading = false;
    });
    const busy: number[] = [];
    while (uploading || busy.length < 3) busy.push(await timeLogin());
    for (const res of await uploads) expect(res.statusCode).toBe(200);

    const ratio = median(busy) / median(idle);
    console.log(
      `login median idle ${median(idle).toFixed(1)} ms, during uploads ${median(busy).toFixed(1)} ms ` +
        `(${busy.length} logins): ratio ${ratio.toFixed(2)}`,
    );
    // The slowdown is printed, not asserted: a timed assertion fails on a loaded machine whatever the code
    // does (it read 1.2× here, and ~150× when renders shared libuv's threads). What is asserted: every login
    // during the renders answers 200 (timeLogin), every upload succeeds, and the renders run in processes of
    // their own at a lower priority (the tests above).
  }, 300_000);
});

describe.each([processBackend])('%s: the render queue is bounded', (backend) => {
  const ctx = useTestApp(backend, { IMAGE_WORKERS: '1', IMAGE_QUEUE_LIMIT: '0' });

  it('answers 503 with Retry-After for an upload that finds the renderer busy and no room to wait', async () => {
    const [first, second] = await Promise.all([registerUser(ctx.app), registerUser(ctx.app)]);
    const gif = { filename: 'big.gif', contentType: 'image/gif' };
    const results = await Promise.all([
      updatePicture(ctx.app, first.token, bigGif, gif),
      updatePicture(ctx.app, second.token, bigGif, gif),
    ]);
    const statuses = results.map((res) => res.statusCode).sort();
    expect(statuses).toEqual([200, 503]);
    const shed = results.find((res) => res.statusCode === 503) as (typeof results)[0];
    expectError(shed, 503, ...UNAVAILABLE);
    expect(shed.headers['retry-after']).toBe('1');
  }, 120_000);
});

/** A renderer that dies mid-render is the service's failure, not the image's: 503, Retry-After, an error line. */
describe.each([processBackend])('%s: a renderer killed mid-render', (backend) => {
  let ctx: TestApp;
  let lines: string[];

  beforeAll(async () => {
    const sink = logSink();
    lines = sink.lines;
    ctx = await createTestApp(backend, { IMAGE_WORKERS: '1', LOG_LEVEL: 'info' }, { logStream: sink.stream });
  });
  afterAll(async () => {
    if (ctx) await closeTestApp(ctx);
  });

  it('answers 503 with Retry-After and logs the failure at error with the request id', async () => {
    const user = await registerUser(ctx.app);
    lines.length = 0;
    const upload = updatePicture(ctx.app, user.token, bigGif, {
      filename: 'big.gif',
      contentType: 'image/gif',
    });
    let pid: number | undefined;
    while (pid === undefined) {
      await new Promise((resolve) => setTimeout(resolve, 10));
      pid = ctx.imageRenderer.runningPids()[0];
    }
    // Into the render, as the fault injector did (it killed 0.35 s in). Shorter here so a fast machine has not
    // finished the image yet: the render is the child's from the moment it is spawned until it replies.
    await new Promise((resolve) => setTimeout(resolve, 100));
    process.kill(pid, 'SIGKILL');
    const res = await upload;
    expectError(res, 503, ...UNAVAILABLE);
    expect(res.headers['retry-after']).toBe('1');
    const failures = lines.map((line) => JSON.parse(line)).filter((entry) => entry.level >= 50);
    expect(failures).toHaveLength(1);
    expect(failures[0]).toMatchObject({ msg: 'request failed', reqId: res.headers['x-request-id'] });
    expect(JSON.stringify(failures[0].err)).toContain('image renderer exited');
    // The next upload gets a fresh renderer.
    expectOk(await updatePicture(ctx.app, user.token, await pngFixture(64, 64)));
  }, 120_000);
});

describe.each(backends)('%s: image uploads per user', (backend) => {
  const ctx = useTestApp(backend, { RATE_LIMIT_ENABLED: 'true', RATE_LIMIT_IMAGE_UPLOAD: '2/1h' });

  it('answers 429 past the limit, for that user only', async () => {
    const [user, other] = await Promise.all([registerUser(ctx.app), registerUser(ctx.app)]);
    const png = await pngFixture(64, 64);
    expectOk(await updatePicture(ctx.app, user.token, png));
    expectOk(await updatePicture(ctx.app, user.token, png));
    expectTooManyRequests(await updatePicture(ctx.app, user.token, png), 60 * 60);
    expectOk(await updatePicture(ctx.app, other.token, png));
    const me = await ctx.app.inject({ method: 'GET', url: '/v1/user/get', headers: bearer(user.token) });
    expect(expectOk<{ user: { profile_picture: unknown } }>(me).user.profile_picture).toMatchObject({
      width: 64,
      height: 64,
    });
  });

  it('counts every upload, refused ones too: pixel bombs reach the limit like stored pictures', async () => {
    const user = await registerUser(ctx.app);
    const bomb = await pixelBomb();
    expectValidationError(await updatePicture(ctx.app, user.token, bomb), {
      profile_picture: ['The profile picture has invalid image dimensions.'],
    });
    const file = { filename: 'bomb.png', contentType: 'image/png', data: bomb };
    const post = await postMultipart(
      ctx.app,
      '/v1/post/create',
      { text: 'x' },
      { 'images[]': file },
      bearer(user.token),
    );
    expectValidationError(post, { images: ['The images has invalid image dimensions.'] });
    expectTooManyRequests(await updatePicture(ctx.app, user.token, bomb), 60 * 60);
    expectTooManyRequests(await updatePicture(ctx.app, user.token, await pngFixture(32, 32)), 60 * 60);
  });

  it("counts a post's images on the same limit, one per image, text-only posts not at all", async () => {
    const user = await registerUser(ctx.app);
    const png = await pngFixture(32, 32);
    const file = { filename: 'p.png', contentType: 'image/png', data: png };
    const post = (files: Record<string, typeof file | (typeof file)[]>) =>
      postMultipart(ctx.app, '/v1/post/create', { text: 'with images' }, files, bearer(user.token));
    expectOk(await postForm(ctx.app, '/v1/post/create', { text: 'no images' }, bearer(user.token)));
    expectOk(await post({ 'images[]': [file, file] }));
    expectTooManyRequests(await post({ 'images[]': file }), 60 * 60);
    expectOk(await postForm(ctx.app, '/v1/post/create', { text: 'still fine' }, bearer(user.token)));
    expectTooManyRequests(await updatePicture(ctx.app, user.token, png), 60 * 60);
  });
});
