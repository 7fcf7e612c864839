import { describe, expect, it } from 'vitest';
import { PAGES } from '../../src/web/pages.js';
import { useTestApp } from '../helpers/app.js';
import { backends } from '../helpers/database.js';
import { bearer, registerUser } from '../helpers/factories.js';
import { expectError, UNAUTHENTICATED } from '../helpers/http.js';

/**
 * The web pages' session cookie through HTTP: it authenticates like a Bearer token, but only on a
 * same-origin request of the pages; a cross-site request (CSRF) never authenticates by cookie, and the
 * session routes refuse to be driven from another site.
 */
const WEB = { 'x-requested-with': 'accounts-web', host: 'accounts.test' };
const cookieOf = (token: string) => ({ cookie: `theme=dark; accounts_session=${token}` });

describe.each(backends)('%s: web session cookie', (backend) => {
  const ctx = useTestApp(backend);

  const me = (headers: Record<string, string>) =>
    ctx.app.inject({ method: 'GET', url: '/v1/user/get', headers: { ...WEB, ...headers } });

  const startSession = (headers: Record<string, string>) =>
    ctx.app.inject({ method: 'POST', url: '/web/session', headers: { ...WEB, ...headers } });

  it('sets an HttpOnly, SameSite=Strict, Path=/ cookie (not Secure over plain http) for a live token', async () => {
    const user = await registerUser(ctx.app);
    const res = await startSession({ ...bearer(user.token), 'sec-fetch-site': 'same-origin' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ meta: { code: 200 }, data: { status: 'signed_in' } });
    const cookie = String(res.headers['set-cookie']);
    expect(cookie).toMatch(new RegExp(`^accounts_session=${user.token}; `));
    expect(cookie).toContain('; Path=/');
    expect(cookie).toContain('; HttpOnly');
    expect(cookie).toContain('; SameSite=Strict');
    expect(cookie).not.toContain('Secure');
  });

  it('ignores X-Forwarded-Proto from a peer that is not a trusted proxy (no Secure)', async () => {
    const user = await registerUser(ctx.app);
    const res = await startSession({ ...bearer(user.token), 'x-forwarded-proto': 'https' });
    expect(res.statusCode).toBe(200);
    expect(String(res.headers['set-cookie'])).not.toContain('Secure');
  });

  it('refuses to set a session for a dead token, or without a token', async () => {
    expectError(await startSession({ ...bearer('not-a-live-token') }), 401, ...UNAUTHENTICATED);
    expectError(await startSession({}), 401, ...UNAUTHENTICATED);
  });

  it('authenticates a same-origin request of the pages by cookie, exactly like a Bearer token', async () => {
    const user = await registerUser(ctx.app);
    const byCookie = await me({ ...cookieOf(user.token), 'sec-fetch-site': 'same-origin' });
    const byBearer = await me(bearer(user.token));
    expect(byCookie.statusCode).toBe(200);
    expect(byCookie.json()).toEqual(byBearer.json());
    // Same-origin by Origin alone (a browser that sends no Sec-Fetch-Site).
    expect((await me({ ...cookieOf(user.token), origin: 'http://accounts.test' })).statusCode).toBe(200);
  });

  it('ignores the cookie on a cross-site request (CSRF): 401, as if no token were presented', async () => {
    const user = await registerUser(ctx.app);
    const cookie = cookieOf(user.token);
    const forged = [
      // A cross-site form or fetch: no custom header (a form cannot send one).
      { cookie: cookie.cookie, 'x-requested-with': '', host: 'accounts.test' },
      { ...cookie, 'x-requested-with': 'XMLHttpRequest' },
      // The header, but the browser says the request is cross-site or same-site (another subdomain).
      { ...cookie, 'sec-fetch-site': 'cross-site' },
      { ...cookie, 'sec-fetch-site': 'same-site' },
      // The header, but from another origin.
      { ...cookie, origin: 'https://evil.example' },
      { ...cookie, origin: 'null' },
    ];
    for (const headers of forged) {
      const res = await ctx.app.inject({
        method: 'GET',
        url: '/v1/user/get',
        headers: { ...WEB, ...headers },
      });
      expect(res.statusCode, JSON.stringify(headers)).toBe(401);
      expectError(res, 401, ...UNAUTHENTICATED);
    }
    // A forged state-changing request changes nothing.
    const update = await ctx.app.inject({
      method: 'POST',
      url: '/v1/user/update',
      headers: {
        ...cookie,
        host: 'accounts.test',
        'sec-fetch-site': 'cross-site',
        'x-requested-with': 'accounts-web',
      },
      payload: { bio: 'forged' },
    });
    expectError(update, 401, ...UNAUTHENTICATED);
    expect(
      ((await me(bearer(user.token))).json() as { data: { user: { bio: unknown } } }).data.user.bio,
    ).toBeNull();
  });

  it('refuses the session routes from another site (login CSRF, forced sign-out)', async () => {
    const user = await registerUser(ctx.app);
    for (const url of ['/web/session', '/web/session/end']) {
      for (const headers of [{ 'x-requested-with': '' }, { 'sec-fetch-site': 'cross-site' }]) {
        const res = await ctx.app.inject({
          method: 'POST',
          url,
          headers: { ...WEB, ...bearer(user.token), ...cookieOf(user.token), ...headers },
        });
        expectError(res, 403, 'AccessDeniedHttpException', 'This action is unauthorized.');
        expect(res.headers['set-cookie']).toBeUndefined();
      }
    }
    expect((await me(bearer(user.token))).statusCode).toBe(200);
  });

  it('a revoked token in the cookie is a 401; sign-out revokes the token and clears the cookie', async () => {
    const user = await registerUser(ctx.app);
    const end = await ctx.app.inject({
      method: 'POST',
      url: '/web/session/end',
      headers: { ...WEB, ...cookieOf(user.token), 'sec-fetch-site': 'same-origin' },
    });
    expect(end.statusCode).toBe(200);
    expect(String(end.headers['set-cookie'])).toMatch(
      /^accounts_session=; Path=\/; HttpOnly; SameSite=Strict; Max-Age=0/,
    );
    expectError(await me(cookieOf(user.token)), 401, ...UNAUTHENTICATED);
    expectError(await me(bearer(user.token)), 401, ...UNAUTHENTICATED);
  });
});

describe('web session cookie behind a trusted TLS proxy', () => {
  const ctx = useTestApp('pglite', { TRUST_PROXY: '127.0.0.1' });

  it('marks the cookie Secure when the client came over https', async () => {
    const user = await registerUser(ctx.app);
    const res = await ctx.app.inject({
      method: 'POST',
      url: '/web/session',
      headers: { ...WEB, ...bearer(user.token), 'x-forwarded-proto': 'https' },
    });
    expect(res.statusCode).toBe(200);
    expect(String(res.headers['set-cookie'])).toMatch(/; HttpOnly; SameSite=Strict; Max-Age=\d+; Secure$/);
  });

  it.each([
    ['HTTPS', true],
    ['https, http', true],
    ['Https ,http, http', true],
    ['http', false],
    ['HTTP, http', false],
  ])('reads X-Forwarded-Proto %j without regard to case, at any hop: Secure %s', async (proto, secure) => {
    const user = await registerUser(ctx.app);
    const res = await ctx.app.inject({
      method: 'POST',
      url: '/web/session',
      headers: { ...WEB, ...bearer(user.token), 'x-forwarded-proto': proto },
    });
    expect(res.statusCode).toBe(200);
    const cookie = String(res.headers['set-cookie']);
    if (secure) expect(cookie).toMatch(/; Max-Age=\d+; Secure$/);
    else expect(cookie).not.toContain('Secure');
  });
});

describe('web pages: headers, languages, and the 404 envelope everywhere else', () => {
  const ctx = useTestApp('pglite');

  it('serves every page with a strict CSP, nosniff and no-referrer', async () => {
    for (const url of [
      '/',
      '/signup',
      '/login',
      '/profile',
      '/verify-email?token=x',
      '/reset-password?token=x',
      '/guardian-consent?token=x',
      '/docs',
    ]) {
      const res = await ctx.app.inject({ method: 'GET', url });
      expect(res.statusCode, url).toBe(200);
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
      const csp = String(res.headers['content-security-policy']);
      expect(csp).toContain("default-src 'none'");
      expect(csp).toContain("script-src 'self';");
      expect(csp).toContain("frame-ancestors 'none'");
      expect(csp).not.toContain('unsafe');
      // Without PortOne (PORTONE_*), not even its pages admit it (web-portone-policy.test.ts: with it).
      expect(csp).not.toContain('portone');
      expect(res.headers['cross-origin-opener-policy']).toBe('same-origin');
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      expect(res.headers['referrer-policy']).toBe('no-referrer');
    }
  });

  it('picks the language by ?lang=, then the remembered choice, then Accept-Language', async () => {
    const get = async (url: string, headers: Record<string, string> = {}) =>
      ctx.app.inject({ method: 'GET', url, headers });
    expect((await get('/signup', { 'accept-language': 'ko-KR,ko;q=0.9' })).body).toContain(
      '<html lang="ko">',
    );
    expect((await get('/signup', { 'accept-language': 'en' })).body).toContain('<html lang="en">');
    const switched = await get('/signup?lang=ko', { 'accept-language': 'en' });
    expect(switched.body).toContain('<html lang="ko">');
    expect(String(switched.headers['set-cookie'])).toMatch(/^accounts_lang=ko; Path=\//);
    expect((await get('/login', { 'accept-language': 'en', cookie: 'accounts_lang=ko' })).body).toContain(
      '<html lang="ko">',
    );
    // The switch keeps the query (the mailed token), escaped.
    const reset = await get('/reset-password?token=abc%22x&lang=en');
    expect(reset.body).toContain('href="/reset-password?token=abc%22x&#38;lang=ko"');
  });

  it('keeps the 404 envelope for everything that is not a page or an asset', async () => {
    for (const url of [
      '/nope',
      '/assets/nope.js',
      '/assets/../package.json',
      '/docs/assets/index.html',
      '/signup/x',
    ]) {
      const res = await ctx.app.inject({ method: 'GET', url });
      expect(res.statusCode, url).toBe(404);
      expect(res.json()).toEqual({
        meta: { code: 404, error_type: 'NotFoundHttpException', error_message: 'Not Found' },
        data: [],
      });
    }
  });

  it('posts every form, and sends a form sent before its script ran back to its page', async () => {
    let forms = 0;
    for (const url of Object.values(PAGES)) {
      const page = (await ctx.app.inject({ method: 'GET', url })).body;
      for (const form of page.match(/<form\b[^>]*>/g) ?? []) {
        forms += 1;
        // A GET form would put what was typed (a password) in the address bar, the history and the logs.
        expect(form, url).toContain('method="post"');
      }
    }
    expect(forms).toBeGreaterThan(20);

    const early = await ctx.app.inject({
      method: 'POST',
      url: '/reset-password?token=mailed-token',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'new_password=Quiet-Harbour-1&new_password_again=Quiet-Harbour-1',
    });
    expect(early.statusCode).toBe(303);
    expect(early.headers.location).toBe('/reset-password?token=mailed-token');
    expect(early.headers['cache-control']).toBe('no-store');
    expect(early.body).not.toContain('Quiet-Harbour');
    const login = await ctx.app.inject({ method: 'POST', url: '/login', payload: {} });
    expect([login.statusCode, login.headers.location]).toEqual([303, '/login']);
  });
});
