import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.js';
import { appCommands, type InProcessCommands } from '../helpers/commands.js';
import { backends } from '../helpers/database.js';
import { registrationForm } from '../helpers/factories.js';
import { expectOneLineFailure } from '../helpers/process.js';

const CHEAP_ARGON2 = { ARGON2_MEMORY_KIB: '1024', ARGON2_TIME_COST: '1' };

interface Account {
  id: string;
  email: string;
  username: string;
  password: string;
  token: string;
  tokenId: string;
}

// The commands run in this process on the app's database, and the app answers what they did at once: the
// process's part (its exit code above, a command handed to a running server, `accounts migrate`) is
// test/e2e/cli's and test/e2e/cli-beside-server's.
describe.each(backends)('%s: accounts operator commands end to end', (backend) => {
  const ctx = useTestApp(backend, CHEAP_ARGON2);
  let commands: InProcessCommands;

  beforeAll(() => {
    commands = appCommands(ctx, { BANNER_LINK_SCHEMES: 'app', ...CHEAP_ARGON2 });
  });
  afterAll(async () => {
    await commands?.close();
  });

  const cli = (args: string[]) => commands.run(args);
  const ok = async (args: string[]) => {
    const result = await cli(args);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    return result.stdout;
  };
  const api = async (
    url: string,
    init: { method?: 'POST'; headers?: Record<string, string>; body?: string } = {},
  ) => {
    const res = await ctx.app.inject({
      url,
      method: init.method ?? 'GET',
      headers: init.headers,
      payload: init.body,
    });
    return { status: res.statusCode, body: res.json() as { data: Record<string, unknown> } };
  };
  const form = (fields: Record<string, string>) => ({
    method: 'POST' as const,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields).toString(),
  });
  const asUser = (token: string) => ({ headers: { authorization: `Bearer ${token}` } });
  /** What a token that no longer works gets: the whole 401 envelope. */
  const signedOut = {
    status: 401,
    body: {
      meta: { code: 401, error_type: 'AuthenticationException', error_message: 'Unauthenticated.' },
      data: { status: 'unauthenticated' },
    },
  };
  const notFound = {
    status: 404,
    body: { meta: { code: 404, error_type: 'NotFoundHttpException', error_message: 'Not Found' }, data: [] },
  };

  async function register(): Promise<Account> {
    const fields = registrationForm();
    const { body } = await api('/v1/auth/register', form(fields));
    const user = body.data.user as { id: string; api_token: string };
    const tokens = await api('/v1/user/tokens', asUser(user.api_token));
    const [current] = tokens.body.data.tokens as Array<{ id: string }>;
    return { ...fields, id: user.id, token: user.api_token, tokenId: current?.id as string };
  }

  it('shows, hides and shows again a post with a reason, each an access record about its author', async () => {
    const author = await register();
    const posted = await api('/v1/post/create', {
      ...form({ text: 'a post under review' }),
      headers: { ...form({}).headers, ...asUser(author.token).headers },
    });
    const postId = (posted.body.data.post as { id: string }).id;
    const shown = await ok(['post', 'show', postId]);
    expect(shown).toMatch(new RegExp(`^id +${postId}\n`));
    expect(shown).toContain(`${author.username} (${author.id})\n`);
    expect(shown).toMatch(/\nhidden +no\n\na post under review\n$/);

    // A change without a reason is refused before it touches anyone.
    expect((await cli(['post', 'hide', postId])).stderr).toMatch(/required option '--reason <text>'/);
    expectOneLineFailure(
      await cli(['post', 'hide', postId, '--reason', '  ']),
      '--reason: The reason field is required.',
    );
    expect(await ok(['post', 'hide', postId, '--reason', 'spam links'])).toBe(`Hidden: post ${postId}.\n`);
    expect(await api(`/v1/post/single/${postId}/raw`)).toEqual(notFound);
    expect(JSON.parse(await ok(['post', 'show', postId, '--json']))).toMatchObject({
      id: postId,
      author: { id: author.id, username: author.username },
      hidden_at: expect.stringMatching(/^\d{4}-/),
      hidden_reason: 'spam links',
    });
    expect(await ok(['post', 'unhide', postId, '--reason', 'appeal upheld'])).toBe(
      `Shown again: post ${postId}.\n`,
    );
    expect((await api(`/v1/post/single/${postId}/raw`)).status).toBe(200);
    expectOneLineFailure(
      await cli(['post', 'hide', 'not-a-post', '--reason', 'x']),
      'Post "not-a-post" not found',
    );

    const records = await ctx.database.handle.db
      .selectFrom('access_records')
      .select(['action', 'outcome', 'subject_id'])
      .where('action', 'like', 'post.%')
      .orderBy('seq')
      .execute();
    expect(records).toEqual([
      { action: 'post.view', outcome: 'ok', subject_id: author.id },
      { action: 'post.hide', outcome: 'ok', subject_id: author.id },
      { action: 'post.view', outcome: 'ok', subject_id: author.id },
      { action: 'post.unhide', outcome: 'ok', subject_id: author.id },
      { action: 'post.hide', outcome: 'failed', subject_id: null },
    ]);
  });

  it('runs every command, and the service sees the result', async () => {
    const [kim, lee, park, gone] = [await register(), await register(), await register(), await register()];
    const posted = await api('/v1/post/create', {
      ...form({ text: 'a post an operator takes down' }),
      headers: { ...form({}).headers, ...asUser(kim.token).headers },
    });
    const postId = (posted.body.data.post as { id: string }).id;
    const kept = JSON.parse(
      await ok([
        'banner',
        'add',
        '--title',
        'Spring',
        '--image-url',
        'https://cdn.example.com/s.png',
        '--link-url',
        'app://events/1',
        '--position',
        '2',
        '--starts-at',
        '2020-01-01',
        '--json',
      ]),
    ) as { id: string };
    expect(kept).toMatchObject({
      title: 'Spring',
      link_url: 'app://events/1',
      position: 2,
      starts_at: '2020-01-01T00:00:00.000Z',
      ends_at: null,
    });
    const removed = (
      await ok(['banner', 'add', '--title', 'Gone', '--image-url', 'https://cdn.example.com/g.png'])
    ).match(/^Added banner (\S+) \(active\): Gone\n$/)?.[1];
    expect(removed).toBeDefined();
    expectOneLineFailure(
      await cli(['banner', 'add', '--title', 'Bad', '--image-url', 'ftp://x', '--ends-at', 'tomorrow']),
      '--image-url: The image url format is invalid.; --ends-at: The ends at is not a valid date.',
    );
    for (const link of [
      'javascript:alert(1)//https://',
      'data:text/html,x',
      'vbscript:x',
      'file:///etc/passwd',
    ]) {
      const args = ['banner', 'add', '--title', 'Bad', '--image-url', 'https://cdn.example.com/b.png'];
      expectOneLineFailure(
        await cli([...args, '--link-url', link]),
        '--link-url: The link url format is invalid.',
      );
    }
    const listed = await ok(['banner', 'list']);
    expect(listed).toMatch(/^ID +POSITION +STATUS +WINDOW +TITLE\n/);
    expect(listed).toContain(`${kept.id}  2         active  2020-01-01T00:00:00.000Z .. -`);
    expect(await ok(['banner', 'remove', removed as string])).toBe(`Removed banner ${removed}.\n`);
    expectOneLineFailure(await cli(['banner', 'remove', removed as string]), `Banner "${removed}" not found`);
    expect(
      (JSON.parse(await ok(['banner', 'list', '--json'])) as Array<{ id: string }>).map((b) => b.id),
    ).toEqual([kept.id]);

    expect(await ok(['inspirer', 'add', kim.email])).toBe(`${kim.username} (${kim.id}) is an inspirer.\n`);
    expect(await ok(['inspirer', 'add', lee.username.toUpperCase()])).toBe(
      `${lee.username} (${lee.id}) is an inspirer.\n`,
    );
    expect(await ok(['inspirer', 'remove', lee.id])).toBe(
      `${lee.username} (${lee.id}) is no longer an inspirer.\n`,
    );
    expect(await ok(['inspirer', 'list'])).toMatch(
      new RegExp(`^ID +USERNAME +EMAIL +STATUS\n${kim.id}  ${kim.username}  ${kim.email}  shown\n$`),
    );
    expect(JSON.parse(await ok(['inspirer', 'list', '--json']))).toEqual([
      { id: kim.id, email: kim.email, username: kim.username, disabled_at: null },
    ]);
    expectOneLineFailure(
      await cli(['inspirer', 'add', 'nobody@example.com']),
      'User "nobody@example.com" not found',
    );

    const shown = await ok(['user', 'show', kim.username]);
    expect(shown).toMatch(new RegExp(`^id +${kim.id}\nemail +${kim.email}\n`));
    expect(shown).toMatch(/\ninspirer +yes\ndisabled +no\n/);
    expect(JSON.parse(await ok(['user', 'show', kim.id, '--json']))).toMatchObject({
      id: kim.id,
      is_inspirer: true,
      disabled_at: null,
      has_password: true,
    });

    expect(await ok(['user', 'disable', park.email])).toMatch(
      new RegExp(`^Disabled ${park.username} \\(${park.id}\\) since \\d{4}-.+Z\\.\n$`),
    );
    // Beside the running service: the token stops working at once.
    expect(await api('/v1/user/get', asUser(park.token))).toEqual(signedOut);
    expect(await ok(['user', 'disable', kim.id])).toContain(`Disabled ${kim.username}`);
    expect(await ok(['user', 'enable', kim.email])).toBe(`Enabled ${kim.username} (${kim.id}).\n`);
    expectOneLineFailure(await cli(['user', 'enable', 'nobody']), 'User "nobody" not found');

    expect(await ok(['token', 'revoke', kim.tokenId])).toBe(`Revoked token ${kim.tokenId}.\n`);
    expectOneLineFailure(await cli(['token', 'revoke', kim.tokenId]), `Token "${kim.tokenId}" not found`);
    expect(await ok(['token', 'revoke', '--user', lee.username, '--all'])).toBe(
      `Revoked 1 token of ${lee.username} (${lee.id}).\n`,
    );

    expect(await ok(['post', 'remove', postId, '--reason', 'reported twice'])).toBe(
      `Removed post ${postId}.\n`,
    );
    expectOneLineFailure(await cli(['post', 'remove', postId]), `Post "${postId}" not found`);
    expectOneLineFailure(await cli(['post', 'remove', 'not-a-post']), 'Post "not-a-post" not found');
    // The removal is an access record about the author, with its reason; the misses name nobody.
    const removals = await ctx.database.handle.db
      .selectFrom('access_records')
      .select(['outcome', 'subject_id', 'detail'])
      .where('action', '=', 'post.delete')
      .orderBy('seq')
      .execute();
    expect(removals.map(({ outcome, subject_id }) => [outcome, subject_id])).toEqual([
      ['ok', kim.id],
      ['failed', null],
      ['failed', null],
    ]);
    expect(removals[0]?.detail).toMatchObject({ post_id: postId, reason: 'reported twice' });

    expectOneLineFailure(
      await cli(['user', 'delete', gone.email]),
      `Not deleted: add --yes to delete "${gone.email}" and everything of it`,
    );
    // With the default grace period the deletion is scheduled (its mail written), then --now erases at once.
    expect(await ok(['user', 'delete', gone.email, '--yes', '--lang', 'ko'])).toMatch(
      new RegExp(`^Scheduled the deletion of ${gone.username} \\(${gone.id}\\) for \\d{4}-.+Z\\.\n$`),
    );
    expect(await ok(['user', 'show', gone.id])).toMatch(/\ndeletion +scheduled for \d{4}-.+Z\n/);
    expectOneLineFailure(
      await cli(['user', 'delete', gone.email, '--yes']),
      `${gone.username} (${gone.id}) is already scheduled for deletion; add --now to delete it at once`,
    );
    expect(await ok(['user', 'delete', gone.email, '--yes', '--now'])).toBe(
      `Deleted ${gone.username} (${gone.id}).\n`,
    );
    expectOneLineFailure(await cli(['user', 'delete', gone.id, '--yes']), `User "${gone.id}" not found`);

    expect(await api(`/v1/post/single/${postId}/raw`)).toEqual(notFound);
    expect(await api('/v1/user/get', asUser(gone.token))).toEqual(signedOut);
    // The deleted account's email and username are free again at once.
    const { tokenId: _tokenId, id: _id, token: _token, ...goneFields } = gone;
    expect((await api('/v1/auth/register', form(goneFields))).status).toBe(200);
    const banners = await api('/v1/promotions/banners');
    expect((banners.body.data.banners as Array<{ id: string }>).map((b) => b.id)).toEqual([kept.id]);
    const inspirers = await api('/v1/promotions/inspirers?limit=100');
    expect((inspirers.body.data.inspirers as Array<{ id: string }>).map((u) => u.id)).toEqual([kim.id]);
    for (const revoked of [kim, lee, park]) {
      expect(await api('/v1/user/get', asUser(revoked.token))).toEqual(signedOut);
    }
    expect(
      (await api('/v1/auth/login/email', form({ email: kim.email, password: kim.password }))).status,
    ).toBe(200);
    const refused = await api('/v1/auth/login/email', form({ email: park.email, password: park.password }));
    expect(refused).toEqual({
      status: 401,
      body: {
        meta: { code: 401, error_type: 'Unauthorized', error_message: 'This account is disabled.' },
        data: { status: 'account_disabled' },
      },
    });
  });
});
