import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accountEventsOf } from '../helpers/account-events.js';
import { closeTestApp, createTestApp, useTestApp } from '../helpers/app.js';
import { backends } from '../helpers/database.js';
import { bearer, type RegisteredUser, registerUser } from '../helpers/factories.js';
import { expectError, expectOk, expectValidationError, postForm } from '../helpers/http.js';
import { logSink } from '../helpers/logs.js';
import { expectAuthenticationFailed } from '../helpers/providers.js';
import { enableTotp, expectSecondFactorRequired } from '../helpers/second-factor.js';
import { eventsOf } from '../helpers/security-events.js';
import { type FakeSolapi, newMobile, startFakeSolapi } from '../helpers/solapi.js';

type SignedIn = { user: Record<string, unknown> & { id: string; api_token: string } };
type Mobile = ReturnType<typeof newMobile>;

const NOT_CONFIGURED = [
  'ServiceUnavailableHttpException',
  'SMS not configured.',
  { status: 'sms_not_configured', variables: ['SOLAPI_API_KEY', 'SOLAPI_API_SECRET', 'SOLAPI_SENDER'] },
] as const;

describe.each(backends)('%s: sign-in by a code texted to a verified number', (backend) => {
  let solapi: FakeSolapi;
  const env: Record<string, string> = {};
  beforeAll(async () => {
    solapi = await startFakeSolapi();
    Object.assign(env, solapi.env());
  });
  const ctx = useTestApp(backend, env);
  afterAll(async () => {
    await solapi.close();
  });

  const ask = (phone: string) => postForm(ctx.app, '/v1/auth/phone-code', { phone });
  const verify = (fields: Record<string, string>) => postForm(ctx.app, '/v1/auth/phone-code/verify', fields);
  /** A registered user whose number is verified (written directly: the profile's flow is phone.test.ts's). */
  const withPhone = async (): Promise<RegisteredUser & { phone: Mobile }> => {
    const user = await registerUser(ctx.app);
    const phone = newMobile();
    await ctx.database.handle.db
      .updateTable('users')
      .set({ phone: phone.e164, phone_verified: true })
      .where('id', '=', user.id)
      .execute();
    return { ...user, phone };
  };
  const textedCode = async (phone: Mobile) => {
    expectOk(await ask(phone.typed));
    await ctx.infrastructure.sms.idle();
    return solapi.codeFor(phone.national);
  };

  it('texts a code that signs in once, as login answers, as a phone_code session', async () => {
    const me = await withPhone();
    expect(expectOk(await ask(me.phone.typed))).toEqual({ status: 'sent' });
    await ctx.infrastructure.sms.idle();
    const code = solapi.codeFor(me.phone.national);
    expect(solapi.messages.at(-1)?.text).toBe(`[accounts] Sign-in code ${code} (valid 10 min)`);
    const signedIn = expectOk<SignedIn>(await verify({ phone: `+82 ${me.phone.national.slice(1)}`, code }));
    const { api_token: apiToken, ...view } = signedIn.user;
    expect(view).toMatchObject({ id: me.id, phone: me.phone.e164, phone_verified: true });
    const got = await ctx.app.inject({ method: 'GET', url: '/v1/user/get', headers: bearer(apiToken) });
    expect(expectOk<{ user: unknown }>(got).user).toEqual({ ...view, pending_consents: [] });
    expectAuthenticationFailed(await verify({ phone: me.phone.typed, code }));
    // RFC 8176: a texted code is `sms`.
    const access = expectOk<{ access_token: string }>(
      await postForm(ctx.app, '/v1/auth/token', {}, bearer(apiToken)),
    );
    expect(decodeJwt(access.access_token).amr).toEqual(['sms']);

    const sessions = (await accountEventsOf(ctx.database.handle, me.id)).filter(
      (event) => event.type === 'session.created',
    );
    expect(sessions.at(-1)?.data).toMatchObject({ user_id: me.id, method: 'phone_code' });
    const signIns = (await eventsOf(ctx.database.handle, me.id)).filter((event) => event.type === 'sign_in');
    expect(signIns.at(-1)?.details).toMatchObject({ method: 'phone_code' });
  });

  it('answers an unknown number exactly as a known one, and texts it nothing', async () => {
    const stranger = newMobile();
    const before = solapi.messages.length;
    const res = await ask(stranger.typed);
    expect(res.json()).toEqual({ meta: { code: 200 }, data: { status: 'sent' } });
    await ctx.infrastructure.sms.idle();
    expect(solapi.messages.length).toBe(before);
    expectAuthenticationFailed(await verify({ phone: stranger.typed, code: '123456' }));
  });

  it('refuses a wrong code with the login’s 401, counted as a failed sign-in', async () => {
    const me = await withPhone();
    const code = await textedCode(me.phone);
    const wrong = String((Number(code) + 1) % 1_000_000).padStart(6, '0');
    expectAuthenticationFailed(await verify({ phone: me.phone.typed, code: wrong }));
    const failed = (await eventsOf(ctx.database.handle, me.id)).filter(
      (event) => event.type === 'sign_in_failed',
    );
    expect(failed.at(-1)?.details).toMatchObject({ method: 'phone_code' });
    expectOk(await verify({ phone: me.phone.typed, code }));
  });

  it('answers a second factor, a disabled account and a scheduled deletion as the login does', async () => {
    const twoFactor = await withPhone();
    await enableTotp(ctx.app, twoFactor);
    expectSecondFactorRequired(
      await verify({ phone: twoFactor.phone.typed, code: await textedCode(twoFactor.phone) }),
    );

    const disabled = await withPhone();
    const db = ctx.database.handle.db;
    await db.updateTable('users').set({ disabled_at: new Date() }).where('id', '=', disabled.id).execute();
    expectError(
      await verify({ phone: disabled.phone.typed, code: await textedCode(disabled.phone) }),
      401,
      'Unauthorized',
      'This account is disabled.',
      { status: 'account_disabled' },
    );

    const leaving = await withPhone();
    const due = new Date(Date.now() + 86_400_000);
    await db
      .updateTable('users')
      .set({ deletion_due_at: due, deletion_scheduled_at: new Date() })
      .where('id', '=', leaving.id)
      .execute();
    expectError(
      await verify({ phone: leaving.phone.typed, code: await textedCode(leaving.phone) }),
      409,
      'ConflictHttpException',
      'This account is scheduled for deletion.',
      { status: 'deletion_scheduled', scheduled_for: due.toISOString() },
    );
  });

  it('makes exactly one session of one code verified twice at once', async () => {
    const me = await withPhone();
    const code = await textedCode(me.phone);
    const twice = await Promise.all([
      verify({ phone: me.phone.typed, code }),
      verify({ phone: me.phone.e164, code }),
    ]);
    expect(twice.map((res) => res.statusCode).sort()).toEqual([200, 401]);
  });

  it('names every field a request gets wrong', async () => {
    expectValidationError(await postForm(ctx.app, '/v1/auth/phone-code', {}), {
      phone: ['The phone field is required.'],
    });
    expectValidationError(await ask('+1 900 555 0100'), { phone: ['The phone must be a mobile number.'] });
    expectValidationError(await ask('12'), { phone: ['The phone is not a valid phone number.'] });
    expectValidationError(await verify({}), {
      phone: ['The phone field is required.'],
      code: ['The code field is required.'],
    });
    expectValidationError(await verify({ phone: '02-123-4567', code: '123456' }), {
      phone: ['The phone must be a mobile number.'],
    });
    expectValidationError(
      await postForm(ctx.app, '/v1/auth/phone-code', { phone: 'x' }, { 'accept-language': 'ko' }),
      { phone: ['휴대폰 번호가 올바른 전화번호가 아닙니다.'] },
    );
  });
});

describe.each(backends)('%s: the phone routes without SOLAPI', (backend) => {
  it('answer 503 sms_not_configured, and in development write the code to the log instead', async () => {
    const bare = await createTestApp(backend);
    try {
      const me = await registerUser(bare.app);
      expectError(
        await postForm(bare.app, '/v1/auth/phone-code', { phone: '010-1234-5678' }),
        503,
        ...NOT_CONFIGURED,
      );
      expectError(
        await postForm(
          bare.app,
          '/v1/user/phone',
          { phone: '010-1234-5678', current_password: me.password },
          bearer(me.token),
        ),
        503,
        ...NOT_CONFIGURED,
      );
    } finally {
      await closeTestApp(bare);
    }
    const logs = logSink();
    const dev = await createTestApp(
      backend,
      { NODE_ENV: 'development', LOG_LEVEL: 'info' },
      { logStream: logs.stream },
    );
    try {
      const me = await registerUser(dev.app);
      const phone = newMobile();
      const res = await postForm(
        dev.app,
        '/v1/user/phone',
        { phone: phone.typed, current_password: me.password },
        bearer(me.token),
      );
      expect(expectOk(res)).toEqual({ status: 'sent', phone: phone.e164 });
      await dev.infrastructure.sms.idle();
      const line = logs.lines.map((text) => JSON.parse(text)).find((entry) => entry.msg?.startsWith('sms'));
      expect(line).toMatchObject({
        to: `+82 10-****-${phone.e164.slice(-4)}`,
        msg: 'sms (development: not sent)',
      });
      const code = /(\d{6})/.exec(line.text)?.[1] ?? '';
      expect(logs.lines.join('\n')).not.toContain(phone.e164);
      const verified = await postForm(dev.app, '/v1/user/phone/verify', { code }, bearer(me.token));
      expect(expectOk<SignedIn>(verified).user).toMatchObject({ phone: phone.e164, phone_verified: true });
    } finally {
      await closeTestApp(dev);
    }
  });
});
