import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.js';
import { backends } from '../helpers/database.js';
import { bearer, registerUser } from '../helpers/factories.js';
import { expectError, expectOk, postForm, UNAUTHENTICATED } from '../helpers/http.js';

interface TokenItem {
  id: string;
  current: boolean;
  last_used_at: string | null;
  [key: string]: unknown;
}

describe.each(backends)('%s: user/tokens', (backend) => {
  const ctx = useTestApp(backend);

  const login = async (email: string, password: string, userAgent: string) =>
    expectOk<{ user: { api_token: string } }>(
      await postForm(ctx.app, '/v1/auth/login/email', { email, password }, { 'user-agent': userAgent }),
    ).user.api_token;

  const listTokens = async (token: string) =>
    expectOk<{ tokens: TokenItem[] }>(
      await ctx.app.inject({ method: 'GET', url: '/v1/user/tokens', headers: bearer(token) }),
    ).tokens;

  const revoke = (token: string | undefined, id: string) =>
    postForm(ctx.app, `/v1/user/tokens/${id}/revoke`, {}, token ? bearer(token) : {});

  const tokenIdOf = async (token: string) => (await listTokens(token)).find((t) => t.current)?.id as string;

  it('lists the sessions, newest first, marking the current one and never showing a token', async () => {
    const me = await registerUser(ctx.app);
    const phone = await login(me.email, me.password, 'AccountsApp/3.2 (iPhone; iOS 17.4)');
    const tablet = await login(me.email, me.password, 'AccountsApp/3.2 (Android 14)');
    expectOk(
      await postForm(
        ctx.app,
        '/v1/user/device/update',
        { device_id: 'my-phone', platform: 'ios' },
        bearer(phone),
      ),
    );

    const res = await ctx.app.inject({ method: 'GET', url: '/v1/user/tokens', headers: bearer(tablet) });
    const { tokens } = expectOk<{ tokens: TokenItem[] }>(res);
    expect(tokens).toEqual([
      {
        id: expect.any(String),
        created_at: expect.any(String),
        last_used_at: expect.any(String),
        expires_at: null,
        user_agent: 'AccountsApp/3.2 (Android 14)',
        // bowser's reading of it: a readable name, never the raw string.
        device_name: 'Android Browser · Android 14',
        device: null,
        current: true,
      },
      {
        id: expect.any(String),
        created_at: expect.any(String),
        last_used_at: expect.any(String),
        expires_at: null,
        user_agent: 'AccountsApp/3.2 (iPhone; iOS 17.4)',
        device_name: 'AccountsApp 3 · iPhone · iOS',
        device: { device_id: 'my-phone', platform: 'ios' },
        current: false,
      },
      {
        id: expect.any(String),
        created_at: expect.any(String),
        // Issued at registration and never used since.
        last_used_at: null,
        expires_at: null,
        user_agent: 'lightMyRequest',
        // Nothing bowser knows: the client shows its own "unknown device".
        device_name: null,
        device: null,
        current: false,
      },
    ]);
    for (const secret of [me.token, phone, tablet]) expect(res.body).not.toContain(secret);
  });

  it('revokes one of the own sessions: it stops working, the others keep working', async () => {
    const me = await registerUser(ctx.app);
    const phone = await login(me.email, me.password, 'phone');
    const phoneId = await tokenIdOf(phone);
    expectOk(await revoke(me.token, phoneId));
    expectError(
      await ctx.app.inject({ method: 'GET', url: '/v1/user/get', headers: bearer(phone) }),
      401,
      ...UNAUTHENTICATED,
    );
    expect((await listTokens(me.token)).map((t) => t.id)).not.toContain(phoneId);
    // Revoked already: the same id is now unknown.
    expectError(await revoke(me.token, phoneId), 404, 'NotFoundHttpException', 'Not Found', []);
  });

  it('revokes the current session, which signs it out', async () => {
    const me = await registerUser(ctx.app);
    expect(await revoke(me.token, await tokenIdOf(me.token)).then((r) => r.json())).toEqual({
      meta: { code: 200 },
      data: { status: 'revoked' },
    });
    expectError(
      await ctx.app.inject({ method: 'GET', url: '/v1/user/tokens', headers: bearer(me.token) }),
      401,
      ...UNAUTHENTICATED,
    );
  });

  it("never lists or revokes another user's token: a 404, and the token keeps working", async () => {
    const me = await registerUser(ctx.app);
    const other = await registerUser(ctx.app);
    const otherId = await tokenIdOf(other.token);
    expect((await listTokens(me.token)).map((t) => t.id)).not.toContain(otherId);
    expectError(await revoke(me.token, otherId), 404, 'NotFoundHttpException', 'Not Found', []);
    expectOk(await ctx.app.inject({ method: 'GET', url: '/v1/user/get', headers: bearer(other.token) }));
  });

  it('is a 404 for an unknown or malformed id', async () => {
    const me = await registerUser(ctx.app);
    for (const id of ['01890f3e-1c2d-7abc-8def-0123456789ab', 'not-a-uuid', '1%27%20OR%201%3D1']) {
      expectError(await revoke(me.token, id), 404, 'NotFoundHttpException', 'Not Found', []);
    }
  });

  it('writes last_used_at at most once a minute per token', async () => {
    const me = await registerUser(ctx.app);
    const id = await tokenIdOf(me.token);
    const db = ctx.database.handle.db;
    const lastUsed = async () =>
      (
        await db
          .selectFrom('api_tokens')
          .select('last_used_at')
          .where('id', '=', id)
          .executeTakeFirstOrThrow()
      ).last_used_at as Date;

    // Used 30 seconds ago: a request now does not write again.
    const recent = new Date(Date.now() - 30_000);
    await sql`UPDATE api_tokens SET last_used_at = ${recent} WHERE id = ${id}`.execute(db);
    await listTokens(me.token);
    expect((await lastUsed()).getTime()).toBe(recent.getTime());

    // Used two minutes ago: the next request records the new use.
    const old = new Date(Date.now() - 120_000);
    await sql`UPDATE api_tokens SET last_used_at = ${old} WHERE id = ${id}`.execute(db);
    await listTokens(me.token);
    expect((await lastUsed()).getTime()).toBeGreaterThan(old.getTime() + 60_000);
  });

  it('is a 401 without a token, with an unknown one and with a revoked one', async () => {
    const me = await registerUser(ctx.app);
    const id = await tokenIdOf(me.token);
    for (const token of [undefined, 'garbage-token']) {
      expectError(
        await ctx.app.inject({ method: 'GET', url: '/v1/user/tokens', headers: token ? bearer(token) : {} }),
        401,
        ...UNAUTHENTICATED,
      );
      expectError(await revoke(token, id), 401, ...UNAUTHENTICATED);
    }
    expectOk(await postForm(ctx.app, '/v1/auth/logout', {}, bearer(me.token)));
    expectError(
      await ctx.app.inject({ method: 'GET', url: '/v1/user/tokens', headers: bearer(me.token) }),
      401,
      ...UNAUTHENTICATED,
    );
    expectError(await revoke(me.token, id), 401, ...UNAUTHENTICATED);
  });

  it('documents both routes in OpenAPI, with the path parameter', async () => {
    const document = (await ctx.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    expect(Object.keys(document.paths)).toEqual(
      expect.arrayContaining([
        '/user/tokens',
        '/user/tokens/{id}/revoke',
        '/user/update',
        '/user/device/update',
        '/user/device/get',
        '/user/profile-image/update',
      ]),
    );
    expect(document.paths['/user/tokens/{id}/revoke'].post.parameters).toEqual([
      {
        name: 'id',
        in: 'path',
        required: true,
        schema: {
          type: 'string',
          'x-messages': {
            en: ['The id field is required.', 'The id must be a string.'],
            ko: ['ID 필드는 필수입니다.', 'ID는 문자열이어야 합니다.'],
          },
        },
        description:
          'The `id` of the session, from user/tokens. Rules: required. 422: “The id field is required.”, “The id must be a string.”',
      },
    ]);
    // The path parameter is not a body field too.
    const body = document.paths['/user/tokens/{id}/revoke'].post.requestBody;
    expect(body.content['application/x-www-form-urlencoded'].schema.properties).toEqual({});
  });
});
