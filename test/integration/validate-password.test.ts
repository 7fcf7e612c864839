import { describe, expect, it } from 'vitest';
import { isCommonPassword } from '../../src/lib/passwords.js';
import { useTestApp } from '../helpers/app.js';
import { expectTooManyRequests, newIp } from '../helpers/client-requests.js';
import { backends } from '../helpers/database.js';
import { unique } from '../helpers/factories.js';
import { expectOk, expectValidationError } from '../helpers/http.js';
import { limitsEnv } from '../helpers/redis.js';

/** On Mozilla's list (the one isCommonPassword loads), yet long and mixed enough to look good locally. */
const COMMON = 'christopher1';
const TOO_COMMON = 'The password is too common.';

describe.each(backends)('%s: POST /{v}/validate/password', (backend) => {
  // Limits on, as in production: each request below comes from its own address unless the limit is tested.
  const ctx = useTestApp(backend, limitsEnv('memory', { RATE_LIMIT_VALIDATE_IP: '3/1m' }));
  const url = '/v1/validate/password';

  function ask(body: Record<string, string>, ip = newIp(), headers: Record<string, string> = {}) {
    return ctx.app.inject({
      method: 'POST',
      url,
      remoteAddress: ip,
      headers: { 'content-type': 'application/json', ...headers },
      payload: JSON.stringify(body),
    });
  }

  it('answers 200 "valid" for a good password, under every version, never echoing it', async () => {
    const password = `Quiet-Harbour-${unique()}`;
    for (const res of [await ask({ password }), await devAsk(password)]) {
      expect(expectOk(res)).toEqual({ status: 'valid' });
      expect(res.body).not.toContain(password);
    }
  });

  async function devAsk(password: string) {
    return ctx.app.inject({
      method: 'POST',
      url: '/dev/validate/password',
      remoteAddress: newIp(),
      payload: { password },
    });
  }

  it('refuses a password on the common-password list, whatever its case, with the rule message', async () => {
    expect(isCommonPassword(COMMON, [])).toBe(true);
    for (const password of [COMMON, COMMON.toUpperCase()]) {
      const res = await ask({ password });
      expectValidationError(res, { password: [TOO_COMMON] });
      expect(res.body).not.toContain(password);
    }
  });

  it('refuses the email, its local part or the username as the password', async () => {
    const local = `minji.kim${unique()}`;
    const email = `${local}@example.com`;
    const username = `MinjiKim${unique()}`;
    for (const password of [email, local, username.toLowerCase()])
      expectValidationError(await ask({ password, email, username }), { password: [TOO_COMMON] });
    // The same password is fine for someone else.
    expect(expectOk(await ask({ password: local, email: 'other@example.com' }))).toEqual({ status: 'valid' });
  });

  it('neither checks nor looks up the email and username: only the password is judged', async () => {
    const password = `Quiet-Harbour-${unique()}`;
    expect(expectOk(await ask({ password, email: 'not an email', username: 'a b' }))).toEqual({
      status: 'valid',
    });
    expectValidationError(await ask({ password, email: 'e'.repeat(256) }), {
      email: ['The email may not be greater than 255 characters.'],
    });
  });

  it.each([
    ['missing', {}, 'The password field is required.'],
    ['7 characters', { password: 'Qh-7x!k' }, 'The password must be at least 8 characters.'],
    [
      '1025 characters',
      { password: 'q'.repeat(1025) },
      'The password may not be greater than 1024 characters.',
    ],
  ])('refuses a password that is %s', async (_why, body, message) => {
    expectValidationError(await ask(body), { password: [message] });
  });

  it('answers in Korean when the client prefers it', async () => {
    const res = await ask({ password: COMMON }, newIp(), { 'accept-language': 'ko' });
    expectValidationError(res, { password: ['비밀번호는 너무 흔한 비밀번호입니다.'] });
  });

  it('shares the per-IP limit of the other validate endpoints, refused answers counted', async () => {
    const ip = newIp();
    expectOk(await ask({ password: `Quiet-Harbour-${unique()}` }, ip));
    expectValidationError(await ask({ password: COMMON }, ip), { password: [TOO_COMMON] });
    expectOk(
      await ctx.app.inject({
        method: 'POST',
        url: '/v1/validate/slug',
        remoteAddress: ip,
        payload: { slug: `s-${unique()}` },
      }),
    );
    expectTooManyRequests(await ask({ password: `Quiet-Harbour-${unique()}` }, ip), 60);
  });
});
