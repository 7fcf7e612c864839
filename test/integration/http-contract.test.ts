import { describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.js';
import { backends } from '../helpers/database.js';
import { unique } from '../helpers/factories.js';
import {
  expectError,
  expectOk,
  expectValidationError,
  postForm,
  postJson,
  postMultipart,
} from '../helpers/http.js';

const NOT_FOUND = [404, 'NotFoundHttpException', 'Not Found', []] as const;
const METHOD_NOT_ALLOWED = [405, 'MethodNotAllowedHttpException', 'Method Not Allowed', []] as const;

describe.each(backends)('%s: HTTP contract', (backend) => {
  const ctx = useTestApp(backend, { BODY_LIMIT: '4kb' });

  /** POSTs these exact bytes with this content type to validate/email. */
  const sendRaw = (contentType: string, payload: string) =>
    ctx.app.inject({
      method: 'POST',
      url: '/v1/validate/email',
      headers: { 'content-type': contentType },
      payload,
    });

  describe('routes and versions', () => {
    it.each([
      // `/` is the web home page (test/integration/web-session.security.test.ts); nothing else is.
      '/index.html',
      '/v1',
      '/v1/nope',
      '/v9/validate/email',
      '/V1/validate/email',
      '/validate/email',
      '/v1/user/get/x',
    ])('answers the 404 envelope for %s', async (url) => {
      expectError(await ctx.app.inject({ method: 'GET', url }), ...NOT_FOUND);
      expectError(await postForm(ctx.app, url, {}), ...NOT_FOUND);
    });

    it('answers 405 with Allow for a known path and the wrong method', async () => {
      const get = await ctx.app.inject({ method: 'GET', url: '/v1/validate/email' });
      expectError(get, ...METHOD_NOT_ALLOWED);
      expect(get.headers.allow).toBe('POST');
      const post = await ctx.app.inject({ method: 'POST', url: '/v1/user/get' });
      expectError(post, ...METHOD_NOT_ALLOWED);
      expect(post.headers.allow).toBe('GET, HEAD');
      for (const method of ['PUT', 'PATCH', 'DELETE'] as const) {
        expectError(await ctx.app.inject({ method, url: '/v1/auth/register' }), ...METHOD_NOT_ALLOWED);
      }
    });

    it('tolerates a trailing slash and doubled slashes', async () => {
      const email = `slash${unique()}@example.com`;
      expect(expectOk(await postForm(ctx.app, '/v1/validate/email/', { email })).status).toBe('valid');
      expect(expectOk(await postForm(ctx.app, '//v1//validate//email', { email })).status).toBe('valid');
    });

    it('reads parameters from the query string of a POST too (body wins)', async () => {
      const email = `query${unique()}@example.com`;
      const res = await ctx.app.inject({
        method: 'POST',
        url: `/v1/validate/email?email=${encodeURIComponent(email)}`,
      });
      expect(expectOk(res)).toEqual({ email, status: 'valid' });
      const both = await postForm(ctx.app, '/v1/validate/email?email=bad', { email });
      expect(expectOk(both)).toEqual({ email, status: 'valid' });
    });
  });

  describe('bodies', () => {
    it.each(['[]', '["a@b.co"]', '"a@b.co"', '5', 'null', 'true'])(
      'answers 400 for a JSON body that is not an object: %s',
      async (payload) => {
        expectError(
          await sendRaw('application/json', payload),
          400,
          'BadRequestHttpException',
          'Bad Request',
          {
            body: ['The JSON body must be an object.'],
          },
        );
      },
    );

    it.each([
      ['application/x-www-form-urlencoded; charset=UTF-8', 'form'],
      ['application/x-www-form-urlencoded;charset=utf-8', 'form'],
      ['Application/X-WWW-Form-Urlencoded', 'form'],
      ['application/json; charset=utf-8', 'json'],
      ['APPLICATION/JSON', 'json'],
    ])('reads a body sent as %s (what mobile HTTP clients send)', async (contentType, kind) => {
      const email = `ct${unique()}@example.com`;
      const payload = kind === 'json' ? JSON.stringify({ email }) : `email=${encodeURIComponent(email)}`;
      const res = await sendRaw(contentType, payload);
      expect(expectOk(res)).toEqual({ email, status: 'valid' });
    });

    it('answers 400 for malformed JSON', async () => {
      const res = await sendRaw('application/json', '{"email": "a@b.co"');
      expectError(res, 400, 'BadRequestHttpException', 'Bad Request', {
        body: ['The body could not be parsed.'],
      });
    });

    it('takes an empty JSON body as no parameters: the 422 of the missing field, not a 400', async () => {
      const res = await sendRaw('application/json', '');
      expectValidationError(res, { email: ['The email field is required.'] });
    });

    it.each([
      '{"__proto__": {"isAdmin": true}, "email": "%s"}',
      '{"constructor": {"prototype": {"isAdmin": true}}, "email": "%s"}',
    ])(
      'drops the keys of JSON that tries prototype poisoning, like any unknown field: %s',
      async (template) => {
        const email = `proto${unique()}@example.com`;
        const res = await sendRaw('application/json', template.replace('%s', email));
        expect(expectOk(res)).toEqual({ email, status: 'valid' });
        expect(({} as Record<string, unknown>).isAdmin).toBeUndefined();
      },
    );

    it('ignores prototype keys in a form body', async () => {
      const email = `proto${unique()}@example.com`;
      const res = await sendRaw(
        'application/x-www-form-urlencoded',
        `__proto__[isAdmin]=1&constructor[prototype][isAdmin]=1&email=${encodeURIComponent(email)}`,
      );
      expect(expectOk(res)).toEqual({ email, status: 'valid' });
      expect(({} as Record<string, unknown>).isAdmin).toBeUndefined();
    });

    it('answers 415 for a body of a type it does not read', async () => {
      const res = await sendRaw('application/xml', '<email>a@b.co</email>');
      expectError(res, 415, 'UnsupportedMediaTypeHttpException', 'Unsupported Media Type');
    });

    it('answers 413 for a form or JSON body over BODY_LIMIT', async () => {
      const big = 'a'.repeat(5000);
      expectError(
        await postForm(ctx.app, '/v1/validate/email', { email: big }),
        413,
        'PayloadTooLargeHttpException',
        'Payload Too Large',
      );
      expectError(
        await postJson(ctx.app, '/v1/validate/email', { email: big }),
        413,
        'PayloadTooLargeHttpException',
        'Payload Too Large',
      );
    });

    it('answers 413 for a multipart body with more than five files', async () => {
      const files = Object.fromEntries(
        Array.from({ length: 6 }, (_, i) => [
          `file${i}`,
          { filename: `f${i}.png`, contentType: 'image/png', data: Buffer.from('x') },
        ]),
      );
      expectError(
        await postMultipart(ctx.app, '/v1/validate/email', { email: 'a@b.co' }, files),
        413,
        'PayloadTooLargeHttpException',
        'Payload Too Large',
      );
    });

    it('refuses any file part on a route that takes no file, before reading it (413)', async () => {
      const res = await postMultipart(
        ctx.app,
        '/v1/validate/email',
        {},
        {
          email: { filename: 'email.txt', contentType: 'text/plain', data: Buffer.from('a@b.co') },
        },
      );
      expectError(res, 413, 'PayloadTooLargeHttpException', 'Payload Too Large');
    });

    it('answers 422 (not 500) for a file where a string is expected on a route that takes files', async () => {
      const res = await postMultipart(
        ctx.app,
        '/v1/auth/register',
        {},
        {
          email: { filename: 'email.txt', contentType: 'text/plain', data: Buffer.from('a@b.co') },
        },
      );
      expect(res.statusCode).toBe(422);
      expect(res.json().data.email).toEqual(['The email must be a string.']);
    });

    it('reads PHP-style nested keys, and a nested value where a string belongs is a 422', async () => {
      const res = await sendRaw('application/x-www-form-urlencoded', 'email[address]=a@b.co');
      expectValidationError(res, { email: ['The email must be a string.'] });
    });
  });

  describe('headers', () => {
    it('sends application/json; charset=utf-8 on success and on every kind of error', async () => {
      for (const res of [
        await ctx.app.inject({ method: 'GET', url: '/healthz' }),
        await ctx.app.inject({ method: 'GET', url: '/nope' }),
        await ctx.app.inject({ method: 'GET', url: '/v1/validate/email' }),
        await ctx.app.inject({ method: 'GET', url: '/v1/user/get' }),
        await postForm(ctx.app, '/v1/validate/email', {}),
      ]) {
        expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
      }
    });

    it('echoes a plain client request id and replaces an unsafe one', async () => {
      const kept = await ctx.app.inject({
        method: 'GET',
        url: '/healthz',
        headers: { 'x-request-id': 'app-42.a_b' },
      });
      expect(kept.headers['x-request-id']).toBe('app-42.a_b');
      const replaced = await ctx.app.inject({
        method: 'GET',
        url: '/healthz',
        headers: { 'x-request-id': 'evil\tlog line' },
      });
      expect(replaced.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
      const fresh = await ctx.app.inject({ method: 'GET', url: '/nope' });
      expect(fresh.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    });
  });

  describe('health', () => {
    it('answers /healthz and /readyz with their envelopes', async () => {
      expect((await ctx.app.inject({ method: 'GET', url: '/healthz' })).json()).toEqual({
        meta: { code: 200 },
        data: { status: 'ok' },
      });
      expect((await ctx.app.inject({ method: 'GET', url: '/readyz' })).json()).toEqual({
        meta: { code: 200 },
        data: { status: 'ready' },
      });
    });
  });
});

describe.each(backends)('%s: API_VERSIONS', (backend) => {
  const ctx = useTestApp(backend, { API_VERSIONS: 'v2,legacy' });

  it('serves every route under each configured version and nowhere else', async () => {
    const email = `versions${unique()}@example.com`;
    expect(expectOk(await postForm(ctx.app, '/v2/validate/email', { email })).status).toBe('valid');
    expect(expectOk(await postForm(ctx.app, '/legacy/validate/email', { email })).status).toBe('valid');
    expectError(await postForm(ctx.app, '/v1/validate/email', { email }), ...NOT_FOUND);
    expectError(await postForm(ctx.app, '/dev/validate/email', { email }), ...NOT_FOUND);
  });
});
