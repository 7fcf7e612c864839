import { describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.js';
import { backends } from '../helpers/database.js';
import { bearer, registerUser } from '../helpers/factories.js';
import { expectError, expectOk, postForm } from '../helpers/http.js';

const JSON_TYPE = { 'content-type': 'application/json' };

describe.each(backends)('%s: bodies that carry no parameters', (backend) => {
  const ctx = useTestApp(backend);

  it('takes a GET with a JSON content type and no body as no parameters', async () => {
    const user = await registerUser(ctx.app);
    const res = await ctx.app.inject({
      method: 'GET',
      url: '/v1/user/get',
      headers: { ...JSON_TYPE, ...bearer(user.token) },
    });
    expect(expectOk<{ user: { id: string } }>(res).user.id).toBe(user.id);
  });

  it('takes an empty JSON body on a POST as no parameters', async () => {
    const user = await registerUser(ctx.app);
    const logout = await ctx.app.inject({
      method: 'POST',
      url: '/v1/auth/logout',
      headers: { ...JSON_TYPE, 'content-length': '0', ...bearer(user.token) },
      payload: '',
    });
    expectOk(logout);
    const validate = await ctx.app.inject({
      method: 'POST',
      url: '/v1/validate/email',
      headers: { ...JSON_TYPE, 'content-length': '0' },
      payload: '',
    });
    expect(validate.statusCode).toBe(422);
    expect(validate.json().data).toHaveProperty('email');
  });

  it('still refuses a JSON body that is not an object, or not JSON', async () => {
    for (const payload of ['null', '[]', '{"email":']) {
      const res = await ctx.app.inject({
        method: 'POST',
        url: '/v1/validate/email',
        headers: JSON_TYPE,
        payload,
      });
      expect(res.statusCode).toBe(400);
      expect(res.json().meta.error_type).toBe('BadRequestHttpException');
    }
  });
});

describe.each(backends)('%s: Cache-Control on API responses', (backend) => {
  const ctx = useTestApp(backend);

  it('is no-store on every response that carries a token or an account, and on errors', async () => {
    const user = await registerUser(ctx.app);
    const login = await postForm(ctx.app, '/v1/auth/login/email', {
      email: user.email,
      password: user.password,
    });
    expect(expectOk<{ user: { api_token: string } }>(login).user.api_token).toEqual(expect.any(String));
    const responses = [
      login,
      await postForm(ctx.app, '/v1/auth/register', {}),
      await ctx.app.inject({ method: 'GET', url: '/v1/user/get', headers: bearer(user.token) }),
      await ctx.app.inject({ method: 'GET', url: `/v1/user/get?api_token=${user.token}` }),
      await ctx.app.inject({ method: 'GET', url: '/v1/user/get' }),
      await ctx.app.inject({ method: 'GET', url: '/v1/nowhere' }),
      await ctx.app.inject({ method: 'GET', url: '/healthz' }),
    ];
    for (const res of responses) expect(res.headers['cache-control']).toBe('no-store');
  });
});

describe.each(backends)('%s: per-IP limits behind a trusted proxy', (backend) => {
  const ctx = useTestApp(backend, {
    TRUST_PROXY: '127.0.0.1',
    RATE_LIMIT_ENABLED: 'true',
    RATE_LIMIT_VALIDATE_IP: '3/1m',
  });

  it('counts every spelling of one client address as one client', async () => {
    const spellings = ['10.9.0.1', '10.9.0.1:1234', '010.009.000.001', '::ffff:10.9.0.1'];
    const statuses: number[] = [];
    for (const spelling of spellings) {
      const res = await postForm(
        ctx.app,
        '/v1/validate/email',
        { email: 'someone@example.com' },
        {
          'x-forwarded-for': spelling,
        },
      );
      statuses.push(res.statusCode);
    }
    expect(statuses.slice(0, 3)).not.toContain(429);
    expect(statuses[3]).toBe(429);
    // Another client is counted apart.
    const other = await postForm(
      ctx.app,
      '/v1/validate/email',
      { email: 'someone@example.com' },
      {
        'x-forwarded-for': '10.9.0.2',
      },
    );
    expect(other.statusCode).not.toBe(429);
  });

  it('keeps the 429 envelope and Retry-After for a limit counted before the body', async () => {
    let res = await postForm(
      ctx.app,
      '/v1/validate/email',
      { email: 'a@b.co' },
      { 'x-forwarded-for': '10.9.1.1' },
    );
    for (let i = 0; i < 3; i++) {
      res = await postForm(
        ctx.app,
        '/v1/validate/email',
        { email: 'a@b.co' },
        { 'x-forwarded-for': '10.9.1.1' },
      );
    }
    expect(res.headers['retry-after']).toMatch(/^\d+$/);
    expectError(res, 429, 'TooManyRequestsHttpException', 'Too Many Attempts.', {
      retry_after: Number(res.headers['retry-after']),
    });
  });
});
