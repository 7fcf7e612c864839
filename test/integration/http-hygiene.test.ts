import { describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.js';
import { expectTooManyRequests } from '../helpers/client-requests.js';
import { backends } from '../helpers/database.js';
import { bearer, registerUser } from '../helpers/factories.js';
import { expectError, expectOk, expectValidationError, postForm } from '../helpers/http.js';

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
    expectValidationError(validate, { email: ['The email field is required.'] });
  });

  it('still refuses a JSON body that is not an object, or not JSON', async () => {
    for (const [payload, message] of [
      ['null', 'The JSON body must be an object.'],
      ['[]', 'The JSON body must be an object.'],
      ['{"email":', 'The body could not be parsed.'],
    ] as const) {
      const res = await ctx.app.inject({
        method: 'POST',
        url: '/v1/validate/email',
        headers: JSON_TYPE,
        payload,
      });
      expectError(res, 400, 'BadRequestHttpException', 'Bad Request', { body: [message] });
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
    const ask = (forwardedFor: string) =>
      postForm(
        ctx.app,
        '/v1/validate/email',
        { email: 'someone@example.com' },
        { 'x-forwarded-for': forwardedFor },
      );
    for (const spelling of spellings.slice(0, 3)) {
      expect(expectOk(await ask(spelling)), spelling).toEqual({
        email: 'someone@example.com',
        status: 'valid',
      });
    }
    expectTooManyRequests(await ask(spellings[3] as string), 60);
    // Another client is counted apart.
    const other = await postForm(
      ctx.app,
      '/v1/validate/email',
      { email: 'someone@example.com' },
      {
        'x-forwarded-for': '10.9.0.2',
      },
    );
    expect(expectOk(other)).toEqual({ email: 'someone@example.com', status: 'valid' });
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
