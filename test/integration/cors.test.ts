import { describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.js';
import { backends } from '../helpers/database.js';
import { unique } from '../helpers/factories.js';
import { expectError, expectValidationError, postForm } from '../helpers/http.js';

const WEB = 'https://app.example.com';
const DEV = 'http://localhost:5173';

function preflight(origin: string, url = '/v1/auth/login/email') {
  return {
    method: 'OPTIONS' as const,
    url,
    headers: {
      origin,
      'access-control-request-method': 'POST',
      'access-control-request-headers': 'authorization, content-type',
    },
  };
}

describe.each(backends)('%s: CORS for the web clients of CORS_ORIGINS', (backend) => {
  const ctx = useTestApp(backend, { CORS_ORIGINS: `${WEB}, ${DEV}` });

  it('answers a preflight from an allowed origin, without credentials', async () => {
    const res = await ctx.app.inject(preflight(WEB));
    expect(res.statusCode).toBe(204);
    expect(res.headers['access-control-allow-origin']).toBe(WEB);
    expect(String(res.headers['access-control-allow-methods'])).toContain('POST');
    expect(String(res.headers['access-control-allow-headers']).toLowerCase()).toContain('authorization');
    expect(res.headers['access-control-allow-credentials']).toBeUndefined();
    expect(res.headers['access-control-max-age']).toBe('600');
    expect(String(res.headers.vary)).toMatch(/origin/i);
  });

  it('allows each listed origin, and only them', async () => {
    expect((await ctx.app.inject(preflight(DEV))).headers['access-control-allow-origin']).toBe(DEV);
    for (const other of ['https://evil.example.com', 'https://app.example.com.evil.test', 'null']) {
      const res = await ctx.app.inject(preflight(other));
      expect(res.headers['access-control-allow-origin']).toBeUndefined();
    }
  });

  it('marks real responses of an allowed origin, errors included, and exposes the request id', async () => {
    const okRes = await postForm(
      ctx.app,
      '/v1/validate/email',
      { email: `web${unique()}@example.com` },
      { origin: WEB },
    );
    expect(okRes.statusCode).toBe(200);
    expect(okRes.headers['access-control-allow-origin']).toBe(WEB);
    expect(String(okRes.headers['access-control-expose-headers']).toLowerCase()).toContain('x-request-id');
    const invalid = await postForm(ctx.app, '/v1/validate/email', { email: 'not an email' }, { origin: WEB });
    expectValidationError(invalid, { email: ['The email must be a valid email address.'] });
    expect(invalid.headers['access-control-allow-origin']).toBe(WEB);
    const foreign = await postForm(
      ctx.app,
      '/v1/validate/email',
      { email: 'a@example.com' },
      { origin: 'https://evil.example.com' },
    );
    expect(foreign.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('keeps 404 for unknown paths and 405 for wrong methods', async () => {
    const unknown = await ctx.app.inject({ method: 'POST', url: '/v1/nowhere', headers: { origin: WEB } });
    expectError(unknown, 404, 'NotFoundHttpException', 'Not Found');
    const wrong = await ctx.app.inject({ method: 'GET', url: '/v1/auth/login/email' });
    expectError(wrong, 405, 'MethodNotAllowedHttpException', 'Method Not Allowed');
    expect(wrong.headers.allow).toBe('POST');
  });
});

describe.each(backends)('%s: CORS_ORIGINS unset', (backend) => {
  const ctx = useTestApp(backend);

  it('allows no origin: a preflight gets no CORS headers', async () => {
    const res = await ctx.app.inject(preflight(WEB));
    expect(res.statusCode).toBe(405);
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
  });
});
