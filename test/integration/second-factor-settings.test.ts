import { describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.js';
import { backends } from '../helpers/database.js';
import { bearer, registerUser } from '../helpers/factories.js';
import { expectError, expectOk, expectValidationError, postForm, UNAUTHENTICATED } from '../helpers/http.js';
import {
  awayFromStepEdge,
  enableTotp,
  expectSecondFactorRequired,
  loginByEmail,
  secondFactor,
  type TotpSetup,
} from '../helpers/second-factor.js';
import { base32Decode, currentCode } from '../helpers/totp.js';

const INVALID_CODE = { code: ['The code is invalid.'] };

describe.each(backends)('%s: setting up the second factor', (backend) => {
  const ctx = useTestApp(backend, { APP_NAME: 'Minji Talk' });
  const post = (path: string, token: string, body: Record<string, string> = {}) =>
    postForm(ctx.app, `/v1/user/2fa${path}`, body, bearer(token));
  const status = async (token: string) =>
    expectOk(await ctx.app.inject({ method: 'GET', url: '/v1/user/2fa', headers: bearer(token) }));

  it('sets up with re-authentication, enables with a code, and shows the recovery codes once', async () => {
    await awayFromStepEdge();
    const user = await registerUser(ctx.app);
    expect(await status(user.token)).toEqual({
      totp: { enabled: false, created_at: null },
      recovery_codes_left: 0,
    });
    expectValidationError(await post('/totp/setup', user.token), {
      current_password: ['The current password field is required.'],
    });
    expectValidationError(await post('/totp/setup', user.token, { current_password: 'not-the-password' }), {
      current_password: ['The current password is incorrect.'],
    });
    const setup = expectOk<TotpSetup>(
      await post('/totp/setup', user.token, { current_password: user.password }),
    );
    expect(base32Decode(setup.secret)).toHaveLength(20);
    const url = new URL(setup.otpauth_url);
    expect(`${url.protocol}//${url.host}${decodeURIComponent(url.pathname)}`).toBe(
      `otpauth://totp/Minji Talk:${user.email}`,
    );
    expect(Object.fromEntries(url.searchParams)).toMatchObject({
      secret: setup.secret,
      issuer: 'Minji Talk',
      algorithm: 'SHA1',
      digits: '6',
      period: '30',
    });
    expect(setup.qr_svg).toMatch(/^<svg [^>]*xmlns="http:\/\/www.w3.org\/2000\/svg"[\s\S]*<\/svg>\s*$/);
    // Pending: the login is unchanged, and the status says off.
    expectOk(await loginByEmail(ctx.app, user));
    expect((await status(user.token)).totp).toEqual({ enabled: false, created_at: null });

    expectValidationError(await post('/totp/enable', user.token, { code: '000000x' }), INVALID_CODE);
    const wrong = currentCode(setup.secret, 5);
    expectValidationError(await post('/totp/enable', user.token, { code: wrong }), INVALID_CODE);
    const enabled = expectOk<{ recovery_codes: string[] }>(
      await post('/totp/enable', user.token, { code: currentCode(setup.secret) }),
    );
    expect(enabled.recovery_codes).toHaveLength(10);
    for (const code of enabled.recovery_codes) expect(code).toMatch(/^[a-z2-7]{5}-[a-z2-7]{5}$/);
    const now = await status(user.token);
    expect(now).toMatchObject({ totp: { enabled: true }, recovery_codes_left: 10 });
    expect(Date.parse((now.totp as { created_at: string }).created_at)).not.toBeNaN();
    // Only the digests are stored, and the secret is sealed.
    const stored = await ctx.database.handle.db
      .selectFrom('totp_credentials')
      .select('secret')
      .where('user_id', '=', user.id)
      .executeTakeFirstOrThrow();
    expect(stored.secret).toMatch(/^v1\./);
    expect(stored.secret).not.toContain(setup.secret);

    // Enabled: a new setup or enable is refused until it is disabled.
    const ALREADY = { totp: ['Two-factor authentication is already enabled; disable it first.'] };
    expectValidationError(
      await post('/totp/setup', user.token, { current_password: user.password }),
      ALREADY,
    );
    expectValidationError(
      await post('/totp/enable', user.token, { code: currentCode(setup.secret, 1) }),
      ALREADY,
    );
    expectSecondFactorRequired(await loginByEmail(ctx.app, user));
  });

  it('enabling needs a setup first; a new setup replaces the pending secret', async () => {
    await awayFromStepEdge();
    const user = await registerUser(ctx.app);
    expectValidationError(await post('/totp/enable', user.token, { code: '123456' }), {
      code: ['Set up the authenticator first.'],
    });
    expectValidationError(await post('/totp/enable', user.token), { code: ['The code field is required.'] });
    const first = expectOk<TotpSetup>(
      await post('/totp/setup', user.token, { current_password: user.password }),
    );
    const second = expectOk<TotpSetup>(
      await post('/totp/setup', user.token, { current_password: user.password }),
    );
    expect(second.secret).not.toBe(first.secret);
    expectValidationError(
      await post('/totp/enable', user.token, { code: currentCode(first.secret) }),
      INVALID_CODE,
    );
    expectOk(await post('/totp/enable', user.token, { code: currentCode(second.secret) }));
  });

  it('regenerating needs re-authentication and a code, and kills the old codes', async () => {
    await awayFromStepEdge();
    const user = await enableTotp(ctx.app, await registerUser(ctx.app));
    expectValidationError(
      await post('/recovery-codes/regenerate', user.token, { code: currentCode(user.secret) }),
      {
        current_password: ['The current password field is required.'],
      },
    );
    expectValidationError(
      await post('/recovery-codes/regenerate', user.token, {
        current_password: user.password,
        recovery_code: user.recoveryCodes[0] as string,
      }),
      { code: ['The code field is required.'] },
    );
    const fresh = expectOk<{ recovery_codes: string[] }>(
      await post('/recovery-codes/regenerate', user.token, {
        current_password: user.password,
        code: currentCode(user.secret),
      }),
    );
    expect(fresh.recovery_codes).toHaveLength(10);
    expect(fresh.recovery_codes.some((code) => user.recoveryCodes.includes(code))).toBe(false);
    const oldCode = expectSecondFactorRequired(await loginByEmail(ctx.app, user));
    expectValidationError(
      await secondFactor(ctx.app, { challenge: oldCode, recovery_code: user.recoveryCodes[0] as string }),
      { recovery_code: ['The recovery code is invalid.'] },
    );
    const newCode = expectSecondFactorRequired(await loginByEmail(ctx.app, user));
    expectOk(
      await secondFactor(ctx.app, { challenge: newCode, recovery_code: fresh.recovery_codes[0] as string }),
    );
    expect(await status(user.token)).toMatchObject({ recovery_codes_left: 9 });
  });

  it('disabling needs re-authentication and a code or a recovery code; the login is plain again', async () => {
    await awayFromStepEdge();
    const user = await enableTotp(ctx.app, await registerUser(ctx.app));
    expectValidationError(await post('/disable', user.token, { current_password: user.password }), {
      code: ['The code field is required.'],
    });
    expectValidationError(await post('/disable', user.token, { code: currentCode(user.secret) }), {
      current_password: ['The current password field is required.'],
    });
    expectValidationError(
      await post('/disable', user.token, { current_password: user.password, recovery_code: 'aaaaa-bbbbb' }),
      { recovery_code: ['The recovery code is invalid.'] },
    );
    expect(
      expectOk(
        await post('/disable', user.token, {
          current_password: user.password,
          recovery_code: (user.recoveryCodes[3] as string).toUpperCase(),
        }),
      ),
    ).toEqual({ totp: { enabled: false, created_at: null }, recovery_codes_left: 0 });
    expectOk(await loginByEmail(ctx.app, user));
    expectValidationError(
      await post('/disable', user.token, { current_password: user.password, code: '123456' }),
      {
        totp: ['Two-factor authentication is not enabled.'],
      },
    );
    const left = await ctx.database.handle.db
      .selectFrom('recovery_codes')
      .select('user_id')
      .where('user_id', '=', user.id)
      .execute();
    expect(left).toEqual([]);
  });

  it('needs a signed-in user on every route', async () => {
    for (const path of ['/totp/setup', '/totp/enable', '/disable', '/recovery-codes/regenerate']) {
      expectError(await postForm(ctx.app, `/v1/user/2fa${path}`, {}), 401, ...UNAUTHENTICATED);
      // A token that names nobody is refused the same way.
      expectError(
        await postForm(ctx.app, `/v1/user/2fa${path}`, {}, bearer('not-a-token')),
        401,
        ...UNAUTHENTICATED,
      );
    }
  });
});

describe.each(backends)('%s: the second factor without SECRETS_KEY', (backend) => {
  const ctx = useTestApp(backend, { SECRETS_KEY: '' });

  it('answers a clear 503 naming the variable, and the status still works', async () => {
    const user = await registerUser(ctx.app);
    for (const path of ['/totp/setup', '/totp/enable', '/disable', '/recovery-codes/regenerate']) {
      expectError(
        await postForm(
          ctx.app,
          `/v1/user/2fa${path}`,
          { current_password: user.password },
          bearer(user.token),
        ),
        503,
        'ServiceUnavailableHttpException',
        'Second factor not configured.',
        { status: 'second_factor_not_configured', variables: ['SECRETS_KEY'] },
      );
    }
    expectOk(await ctx.app.inject({ method: 'GET', url: '/v1/user/2fa', headers: bearer(user.token) }));
    expectOk(await loginByEmail(ctx.app, user));
  });
});
