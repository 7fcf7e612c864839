import { describe, expect, it } from 'vitest';
import { backends } from '../helpers/database.js';
import { registerUser } from '../helpers/factories.js';
import { expectError, expectOk, expectValidationError } from '../helpers/http.js';
import { createdPost, type FeedPage } from '../helpers/posts.js';
import { buildTestServices } from '../helpers/services.js';
import { enrolledStaff, signedInStaff, testClock, useConsoleApp } from '../helpers/staff.js';

const FORBIDDEN = ['AccessDeniedHttpException', 'This action is unauthorized.'] as const;
const NOT_FOUND = ['NotFoundHttpException', 'Not Found'] as const;
const REASON = 'Report 812: spam linking to a phishing page';

describe.each(backends)('%s: the admin API on posts and consent documents', (backend) => {
  const clock = testClock();
  const ctx = useConsoleApp(backend, clock);

  // One member per role for the file: each enrollment and sign-in hashes a password.
  const members = new Map<string, Promise<{ id: string; headers: Record<string, string> }>>();
  const signedIn = (role: string) => {
    const existing = members.get(role);
    if (existing) return existing;
    const made = enrolledStaff(ctx, clock, role).then(async (member) => ({
      id: member.id,
      headers: await signedInStaff(ctx, clock, member),
    }));
    members.set(role, made);
    return made;
  };
  const get = (url: string, headers: Record<string, string>) =>
    ctx.app.inject({ method: 'GET', url: `/admin/v1${url}`, headers });
  const post = (url: string, headers: Record<string, string>, payload: Record<string, unknown> = {}) =>
    ctx.app.inject({ method: 'POST', url: `/admin/v1${url}`, headers, payload });
  /** The records an actor wrote, oldest first, as the access records keep them. */
  const recordsBy = async (actor: string) => {
    const { records } = await buildTestServices(ctx).accessRecords.page({ actor }, 50);
    return records.reverse().map((r) => ({
      subject: r.subjectId,
      action: r.action,
      reason: r.reason,
      outcome: r.outcome,
      detail: r.detail,
    }));
  };
  const feedIds = async () =>
    expectOk<FeedPage>(
      await ctx.app.inject({ method: 'GET', url: '/v1/post/raw/feed?order=new&limit=50' }),
    ).posts.map((p) => p.id);

  it('finds an author’s posts by keyset pages, hides one out of the feed and back, deletes it; each recorded', async () => {
    const author = await registerUser(ctx.app);
    const [first, second, third] = [
      await createdPost(ctx.app, author.token, 'one'),
      await createdPost(ctx.app, author.token, 'two'),
      await createdPost(ctx.app, author.token, 'three'),
    ];
    const viewer = await signedIn('viewer');
    const content = await signedIn('content');
    type Page = { author: { id: string }; posts: { id: string }[]; next_cursor: string | null };
    const page = expectOk<Page>(await get(`/posts?author=${author.username}&limit=2`, viewer.headers));
    expect(page.posts.map((p) => p.id)).toEqual([third?.id, second?.id]);
    const rest = expectOk<Page>(
      await get(`/posts?author=${author.id}&limit=2&cursor=${page.next_cursor}`, viewer.headers),
    );
    expect(rest).toEqual({
      author: page.author,
      posts: [expect.objectContaining({ id: first?.id })],
      next_cursor: null,
    });
    // Named as the commands name a user: by email too.
    const byEmail = expectOk<Page>(
      await get(`/posts?author=${encodeURIComponent(author.email)}`, viewer.headers),
    );
    expect(byEmail.author).toEqual(page.author);

    const target = `/posts/${second?.id}`;
    expectError(await post(`${target}/hide`, viewer.headers, { reason: REASON }), 403, ...FORBIDDEN);
    expectValidationError(await post(`${target}/hide`, content.headers, {}), {
      reason: ['The reason field is required.'],
    });
    expect(await feedIds()).toContain(second?.id);
    const hidden = expectOk<{ post: Record<string, unknown> }>(
      await post(`${target}/hide`, content.headers, { reason: REASON }),
    ).post;
    expect(hidden).toEqual({
      id: second?.id,
      author: { id: author.id, username: author.username },
      text: 'two',
      image_count: 0,
      like_count: 0,
      created_at: second?.created_at,
      author_hidden: false,
      hidden_at: expect.any(String),
      hidden_reason: REASON,
    });
    expect(await feedIds()).not.toContain(second?.id);
    expect(
      (await ctx.app.inject({ method: 'GET', url: `/v1/post/single/${second?.id}/raw` })).statusCode,
    ).toBe(404);
    expectOk(await post(`${target}/unhide`, content.headers, { reason: 'Appeal granted' }));
    expect(await feedIds()).toContain(second?.id);
    expectOk(await post(`${target}/delete`, content.headers, { reason: REASON }));
    expectError(await get(target, viewer.headers), 404, ...NOT_FOUND);

    const about = { subject: author.id, outcome: 'ok' };
    expect(await recordsBy(viewer.id)).toEqual([
      { ...about, action: 'posts.view', reason: null, detail: { posts: 2 } },
      { ...about, action: 'posts.view', reason: null, detail: { posts: 1 } },
      { ...about, action: 'posts.view', reason: null, detail: { posts: 3 } },
      {
        subject: null,
        action: 'post.hide',
        reason: null,
        outcome: 'refused',
        detail: { permission: 'content.write', post_id: second?.id },
      },
    ]);
    const on = { post_id: second?.id };
    expect(await recordsBy(content.id)).toEqual([
      { ...about, action: 'post.hide', reason: REASON, detail: on },
      { ...about, action: 'post.unhide', reason: 'Appeal granted', detail: on },
      { ...about, action: 'post.delete', reason: REASON, detail: on },
    ]);
  });

  it('publishes a consent version with its body, which the app then serves; others are refused', async () => {
    const key = `house_rules_${backend.replace(/\W/g, '')}`;
    const support = await signedIn('support');
    const content = await signedIn('content');
    const body = '제1조 (목적)\r\n이 규칙은 게시물의 기준을 정합니다.\r\n';
    const fields = { version: 1, title_ko: '게시물 운영 규칙', body_ko: body };
    expectError(await post(`/consents/${key}/versions`, support.headers, fields), 403, ...FORBIDDEN);
    expectValidationError(
      await post(`/consents/${key}/versions`, content.headers, { version: 1, body_ko: body }),
      {
        title_ko: ['The title ko field is required.'],
      },
    );
    expect(expectOk(await post(`/consents/${key}/versions`, content.headers, fields))).toEqual({
      key,
      version: 1,
      current_version: 1,
      texts: { ko: { title: '게시물 운영 규칙', url: `/legal/${key}/1/ko` } },
      bodies: { ko: '제1조 (목적)\n이 규칙은 게시물의 기준을 정합니다.' },
    });
    expectValidationError(await post(`/consents/${key}/versions`, content.headers, fields), {
      version: ['The version must be at least 2.'],
    });
    // Past the column's integer, a version is a 422 on `version`, never PostgreSQL's out-of-range 500.
    const huge = { ...fields, version: 3_000_000_000 };
    expectValidationError(await post(`/consents/${key}/versions`, content.headers, huge), {
      version: ['The version may not be greater than 999999999.'],
    });
    expectValidationError(await get(`/consents/${key}/versions/3000000000`, support.headers), {
      version: ['The version may not be greater than 999999999.'],
    });
    expect(expectOk(await get(`/consents/${key}/versions`, support.headers))).toEqual({
      key,
      versions: [
        {
          version: 1,
          published_at: expect.any(String),
          texts: { ko: { title: '게시물 운영 규칙', url: `/legal/${key}/1/ko` } },
          body_languages: ['ko'],
        },
      ],
    });

    const documents = expectOk<{ documents: unknown[] }>(
      await ctx.app.inject({
        method: 'GET',
        url: '/v1/consents/documents',
        headers: { 'accept-language': 'ko' },
      }),
    ).documents;
    expect(documents).toContainEqual({
      key,
      version: 1,
      title: '게시물 운영 규칙',
      url: `/legal/${key}/1/ko`,
      required: false,
    });
    const page = await ctx.app.inject({ method: 'GET', url: `/legal/${key}/1/ko` });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('이 규칙은 게시물의 기준을 정합니다.');
  });
});
