import { createHash } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import type { LightMyRequestResponse } from 'fastify';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeProvider, startFakeProvider } from '../../src/dev/fake-provider.js';
import { newApiToken } from '../../src/lib/tokens.js';
import { closeTestApp, createTestApp, type TestApp } from '../helpers/app.js';
import { backends } from '../helpers/database.js';
import { bearer, type RegisteredUser, registerUser } from '../helpers/factories.js';
import { expectOk, postForm } from '../helpers/http.js';
import { everywhere, malformed, type Presentation, twoCredentials } from '../helpers/presentations.js';
import { concretePath, type DocumentedRoute, documentedRoutes, registeredRoutes } from '../helpers/routes.js';

/**
 * Every route the app documents as `auth: 'required'`, in every API version it serves, refuses every kind of
 * bad credential with the one exact 401 envelope; so does every `auth: 'optional'` route, which answers
 * anonymously only when no credential at all was presented. The route list comes from the app, so a route
 * added later is covered the moment it exists; the guard list below catches one that forgot to ask for a token.
 */

const UNAUTHENTICATED_BODY = {
  meta: { code: 401, error_type: 'AuthenticationException', error_message: 'Unauthenticated.' },
  data: { status: 'unauthenticated' },
};

/** Paths that act for a signed-in user by their very name: each must be `auth: 'required'`. */
const MUST_BE_PROTECTED = [
  /^\/user\//,
  /^\/test\//,
  /^\/post\/(create|like|unlike|delete)(\/|$)/,
  /^\/auth\/logout$/,
];

/**
 * Routes outside the versioned API (health, metrics, the document itself, media files, and the web pages:
 * pages, the consent documents' pages, their assets, the session-cookie routes and /docs) and the versioned
 * data-export download link (a file), the JWKS and the token introspection (their RFCs' JSON), not an
 * envelope. Fastify's route printer shows the wildcard asset routes as `/*` and `/docs*`. The console's pages
 * and the admin API are the second app's: its routes are checked against /admin/openapi.json
 * (console-boundaries.test.ts).
 */
const UNVERSIONED =
  /^(GET|POST) (\*|\/\*|\/healthz|\/readyz|\/metrics|\/openapi\.json|\/media\/.*|\/|\/(signup|login|profile|verify-email|reset-password|forgot-password|cancel-deletion|account-deleted|guardian-consent|docs)|\/legal\/:key(\/:version\/:lang)?|\/[a-z0-9]+\/export\/download\/:id|\/docs\*|\/(assets|docs\/assets)\/\*|\/web\/session(\/end)?|\/\.well-known\/jwks\.json|\/oauth\/introspect|\/console(\/login|\/enroll|\/users|\/users\/:id|\/audit|\/posts|\/consents|\/webhooks|\/banners|\/inspirers)?|\/admin\/openapi\.json|\/admin\/v1\/.+)$/;

const sha256 = (token: string) => createHash('sha256').update(token).digest();

describe.each(backends)('%s: every protected route refuses bad credentials alike', (backend) => {
  let fake: FakeProvider;
  let ctx: TestApp;
  let versions: string[];
  let routes: DocumentedRoute[];
  let live: RegisteredUser;
  const presentations: Presentation[] = [{ name: 'no token' }];

  /** A user whose token worked, and then was killed by `kill`. */
  async function deadToken(kill: (user: RegisteredUser) => Promise<void>): Promise<string> {
    const user = await registerUser(ctx.app);
    expectOk(await ctx.app.inject({ method: 'GET', url: '/v1/user/get', headers: bearer(user.token) }));
    await kill(user);
    return user.token;
  }

  beforeAll(async () => {
    fake = await startFakeProvider({ clientId: 'accounts-test' });
    // Providers of both kinds, so their link routes exist too; tokens that expire, as in production.
    ctx = await createTestApp(backend, {
      ...fake.env('alpha', 'userinfo'),
      ...fake.env('beta', 'id-token'),
      TOKEN_TTL_DAYS: '30',
    });
    ({ versions, routes } = await documentedRoutes(ctx.app));
    live = await registerUser(ctx.app);
    const loggedOut = await deadToken(async (user) => {
      expectOk(await ctx.app.inject({ method: 'POST', url: '/v1/auth/logout', headers: bearer(user.token) }));
    });
    const revoked = await deadToken(async (user) => {
      const list = expectOk<{ tokens: Array<{ id: string; current: boolean }> }>(
        await ctx.app.inject({ method: 'GET', url: '/v1/user/tokens', headers: bearer(user.token) }),
      );
      const id = list.tokens.find((token) => token.current)?.id;
      const url = `/v1/user/tokens/${id}/revoke`;
      expectOk(await ctx.app.inject({ method: 'POST', url, headers: bearer(user.token) }));
    });
    const expired = await deadToken(async (user) => {
      await sql`UPDATE api_tokens SET expires_at = now() - interval '1 second' WHERE token_hash = ${sha256(user.token)}`.execute(
        ctx.database.handle.db,
      );
    });
    presentations.push(
      ...everywhere('unknown token', newApiToken()),
      ...everywhere('logged-out token', loggedOut),
      ...everywhere('revoked token', revoked),
      ...everywhere('expired token', expired),
      ...malformed(live.token),
      ...twoCredentials(live.token, (await registerUser(ctx.app)).token),
    );
  });
  afterAll(async () => {
    if (ctx) await closeTestApp(ctx);
    if (fake) await fake.close();
  });

  function send(version: string, route: DocumentedRoute, presentation: Presentation) {
    const query =
      presentation.query === undefined ? '' : `?api_token=${encodeURIComponent(presentation.query)}`;
    const url = `${concretePath(version, route.path)}${query}`;
    if (route.method === 'GET') return ctx.app.inject({ method: 'GET', url, headers: presentation.headers });
    const body = presentation.body === undefined ? {} : { api_token: presentation.body };
    return postForm(ctx.app, url, body, presentation.headers);
  }

  it('reads the routes from the app: every versioned route it answers is documented, and nothing else', () => {
    const documented = versions.flatMap((version) =>
      routes.map((route) => `${route.method} /${version}${route.path.replace(/\{([A-Za-z_]+)\}/g, ':$1')}`),
    );
    const answered = registeredRoutes(ctx.app).filter((route) => !UNVERSIONED.test(route));
    expect(answered.sort()).toEqual(documented.sort());
    expect(versions.length).toBeGreaterThanOrEqual(2);
    expect(routes.filter((route) => route.auth === 'required').length).toBeGreaterThanOrEqual(10);
  });

  it('asks for a token on every route whose path says it acts for a signed-in user', () => {
    const guarded = routes.filter((route) => MUST_BE_PROTECTED.some((pattern) => pattern.test(route.path)));
    expect(guarded.length).toBeGreaterThan(0);
    for (const route of guarded)
      expect(`${route.method} ${route.path}: ${route.auth}`).toMatch(/: required$/);
  });

  /** Each request of `routes` × `presented` that did not get the exact 401 envelope. */
  async function notRefused(auth: DocumentedRoute['auth'], presented: Presentation[]): Promise<unknown[]> {
    const wrong: unknown[] = [];
    for (const version of versions) {
      for (const route of routes.filter((candidate) => candidate.auth === auth)) {
        for (const presentation of presented) {
          // A GET carries no body: its body presentation would present nothing, which is the no-token case.
          if (auth === 'optional' && route.method === 'GET' && presentation.body !== undefined) continue;
          const res: LightMyRequestResponse = await send(version, route, presentation);
          const got = { status: res.statusCode, type: res.headers['content-type'], body: res.json() };
          const expected = {
            status: 401,
            type: 'application/json; charset=utf-8',
            body: UNAUTHENTICATED_BODY,
          };
          if (!isDeepStrictEqual(got, expected)) {
            wrong.push({ request: `${route.method} /${version}${route.path}`, with: presentation.name, got });
          }
        }
      }
    }
    return wrong;
  }

  it('answers the exact 401 envelope for no, unknown, logged-out, revoked, expired and malformed credentials', async () => {
    expect(await notRefused('required', presentations)).toEqual([]);
    // The token inside the malformed headers was live all along: the header's shape alone was refused.
    expectOk(await ctx.app.inject({ method: 'GET', url: '/v1/user/get', headers: bearer(live.token) }));
  });

  it('answers the same 401 on the optional-token routes for every credential presented that proves nobody', async () => {
    expect(routes.filter((route) => route.auth === 'optional').length).toBeGreaterThanOrEqual(2);
    const presented = presentations.filter((presentation) => presentation.name !== 'no token');
    expect(await notRefused('optional', presented)).toEqual([]);
  });

  it('answers the optional-token routes anonymously when no credential is presented, and for the token owner', async () => {
    const anonymous: Presentation[] = [
      { name: 'no token' },
      { name: 'empty Authorization header', headers: { authorization: '' } },
      { name: 'empty api_token', query: '', body: '' },
      // Only the web pages' own calls present the cookie: a cross-site request's cookie is no credential.
      { name: 'cookie without the web header', headers: { cookie: `accounts_session=${newApiToken()}` } },
      { name: 'the live token', headers: bearer(live.token) },
      // The same token twice is one credential.
      { name: 'the live token in the header and the query', headers: bearer(live.token), query: live.token },
    ];
    for (const version of versions) {
      for (const route of routes.filter((candidate) => candidate.auth === 'optional')) {
        for (const presentation of anonymous) {
          const res = await send(version, route, presentation);
          // The single post names no post here: its anonymous answer is the 404 of an unknown id.
          const expected = route.path.includes('{') ? 404 : 200;
          expect(res.statusCode, `${route.method} /${version}${route.path} with ${presentation.name}`).toBe(
            expected,
          );
        }
      }
    }
  });

  it('serves a request that presents one token twice, and refuses one that presents two (user/get)', async () => {
    const other = await registerUser(ctx.app);
    const userGet = (query: string, headers: Record<string, string>) =>
      ctx.app.inject({ method: 'GET', url: `/v1/user/get?api_token=${query}`, headers });
    const own = expectOk<{ user: { id: string } }>(await userGet(live.token, bearer(live.token)));
    expect(own.user.id).toBe(live.id);
    for (const res of [
      await userGet(live.token, bearer(other.token)),
      await userGet(other.token, bearer(live.token)),
      await userGet(live.token, bearer(newApiToken())),
    ]) {
      expect({ status: res.statusCode, body: res.json() }).toEqual({
        status: 401,
        body: UNAUTHENTICATED_BODY,
      });
    }
  });

  it('refuses an api_token repeated with two values, in either order, in the query or the body', async () => {
    const wrong = newApiToken();
    const valid = encodeURIComponent(live.token);
    const getWith = (query: string) => ctx.app.inject({ method: 'GET', url: `/v1/user/get?${query}` });
    const postWith = (payload: string) =>
      ctx.app.inject({
        method: 'POST',
        url: '/v1/user/update',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload,
      });
    const twoValues = [`api_token=${wrong}&api_token=${valid}`, `api_token=${valid}&api_token=${wrong}`];
    // A bracketed parameter beside them takes the full PHP-style parser's path.
    const withBrackets = twoValues.map((query) => `${query}&extra[]=1`);
    const refusedResponses = [
      ...(await Promise.all([...twoValues, ...withBrackets].map(getWith))),
      ...(await Promise.all(twoValues.map(postWith))),
    ];
    for (const res of refusedResponses) {
      expect({ status: res.statusCode, body: res.json() }).toEqual({
        status: 401,
        body: UNAUTHENTICATED_BODY,
      });
    }
    // One value repeated, or beside an empty one, is one credential.
    for (const query of [
      `api_token=${valid}&api_token=${valid}`,
      `api_token=&api_token=${valid}&extra[]=1`,
    ]) {
      expect(expectOk<{ user: { id: string } }>(await getWith(query)).user.id).toBe(live.id);
    }
    expectOk(await postWith(`api_token=${valid}&api_token=${valid}`));
  });
});
