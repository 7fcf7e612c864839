import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeProvider, startFakeProvider } from '../../src/dev/fake-provider.js';
import { closeTestApp, createTestApp, type TestApp } from '../helpers/app.js';
import { backends } from '../helpers/database.js';
import { codeFromText, codeMails } from '../helpers/email-code.js';
import { bearer, type RegisteredUser, registerUser, unique } from '../helpers/factories.js';
import { checkGuardianOperations } from '../helpers/guardian.js';
import { expectOk, postForm, postMultipart } from '../helpers/http.js';
import { checkIdentityOperations } from '../helpers/identity.js';
import { jpegFixture } from '../helpers/images.js';
import { latestToken } from '../helpers/mail.js';
import { checkPhoneOperations } from '../helpers/phone.js';
import { type FakePortOne, startFakePortOne } from '../helpers/portone.js';
import { providerSignUp } from '../helpers/providers.js';
import { type Call, checkDocumentedResponse, type SuccessDocument } from '../helpers/response-check.js';
import { awayFromStepEdge } from '../helpers/second-factor.js';
import { buildTestServices } from '../helpers/services.js';
import { type FakeSolapi, startFakeSolapi } from '../helpers/solapi.js';
import { currentCode } from '../helpers/totp.js';
import { checkPasskeyOperations } from '../helpers/webauthn.js';

/**
 * Every documented operation, called once for real: its 200 matches the schema /openapi.json declares for it
 * (strictly: no undeclared property), and the example the document shows has the same shape as that real
 * response — the same keys, the same JSON types, null in the same places, arrays empty in the same places. An
 * operation added without a call here fails the last test, so no response goes unchecked.
 */

describe.each(backends)('%s: every 200 response against its declared schema and example', (backend) => {
  let fake: FakeProvider;
  let portone: FakePortOne;
  let solapi: FakeSolapi;
  let ctx: TestApp;
  let document: SuccessDocument;
  const exercised = new Set<string>();

  beforeAll(async () => {
    fake = await startFakeProvider({ clientId: 'accounts-test' });
    portone = await startFakePortOne();
    solapi = await startFakeSolapi();
    ctx = await createTestApp(backend, {
      ...fake.env('alpha', 'userinfo'),
      ...portone.env(),
      ...solapi.env(),
    });
    document = (await ctx.app.inject({ method: 'GET', url: '/openapi.json' })).json() as SuccessDocument;
  });
  afterAll(async () => {
    if (ctx) await closeTestApp(ctx);
    if (fake) await fake.close();
    await portone?.close();
    await solapi?.close();
  });

  const check = (operation: string, call: Call, status = 200) =>
    checkDocumentedResponse(document, exercised, operation, call, status);

  const get =
    (url: string, token?: string): Call =>
    () =>
      ctx.app.inject({ method: 'GET', url: `/v1${url}`, headers: token ? bearer(token) : {} });
  const post =
    (url: string, body: Record<string, string> = {}, token?: string): Call =>
    () =>
      postForm(ctx.app, `/v1${url}`, body, token ? bearer(token) : {});

  it('answers every operation as documented', async () => {
    const id = unique();
    // validate/*
    await check('POST /validate/email', post('/validate/email', { email: `free${id}@example.com` }));
    await check('POST /validate/username', post('/validate/username', { username: `free${id}` }));
    await check('POST /validate/slug', post('/validate/slug', { slug: `free-${id}` }));
    await check('POST /validate/password', post('/validate/password', { password: `Quiet-Harbour-${id}` }));

    // register, login, the signed-in user
    const minji: RegisteredUser = await registerUser(ctx.app);
    await check(
      'POST /auth/register',
      post('/auth/register', {
        type: 'email',
        email: `r${id}@example.com`,
        username: `r${id}`,
        gender: '0',
        user_agreement: 'on',
        password: `Quiet-Harbour-${id}`,
      }),
    );
    // From the app the session list's example names (its `device_name` is then a string, as there).
    const loggedIn = await check('POST /auth/login/email', () =>
      postForm(
        ctx.app,
        '/v1/auth/login/email',
        { email: minji.email, password: minji.password },
        { 'user-agent': 'Accounts/3.2.0 (iPhone; iOS 18.1)' },
      ),
    );
    // The newest session is the one that registers the device below (the session list's example shows it).
    minji.token = (loggedIn.user as { api_token: string }).api_token;
    await check('GET /user/get', get('/user/get', minji.token));
    await check(
      'POST /user/device/update',
      post(
        '/user/device/update',
        {
          device_id: `device-${id}`,
          platform: 'ios',
          push_token: `push-${id}`,
          app_version: '3.2.0',
          os_version: '18.1',
          locale: 'ko-KR',
          timezone: 'Asia/Seoul',
          push_enabled: 'true',
        },
        minji.token,
      ),
    );
    await check('GET /user/device/get', get('/user/device/get', minji.token));
    // Newest first: the email login above, as the example shows it (before the consent change logs one).
    await check('GET /user/activity', get('/user/activity', minji.token));
    // consents: the documents, the user's state, a change
    await check('GET /consents/documents', get('/consents/documents'));
    await check('GET /user/consents', get('/user/consents', minji.token));
    await check(
      'POST /user/consents/update',
      post('/user/consents/update', { marketing_email: 'on' }, minji.token),
    );
    await check('GET /user/tokens', get('/user/tokens', minji.token));
    await check('POST /auth/token', post('/auth/token', {}, minji.token));
    await check('POST /test/notification', post('/test/notification', {}, minji.token));
    await check('GET /test/notification', get('/test/notification', minji.token));

    // providers: link and unlink for a user with a password, login for one registered through alpha
    const alphaId = `a-${id}`;
    await check(
      'POST /user/providers/alpha/link',
      post(
        '/user/providers/alpha/link',
        {
          alpha_user_id: alphaId,
          alpha_access_token: fake.issueAccessToken(alphaId),
          current_password: minji.password,
        },
        minji.token,
      ),
    );
    await check(
      'POST /user/providers/alpha/unlink',
      post('/user/providers/alpha/unlink', { current_password: minji.password }, minji.token),
    );
    // Unlink exists for every known provider, configured or not (a link to a switched-off one can go).
    for (const path of Object.keys(document.paths)) {
      const name = /^\/user\/providers\/(\w+)\/unlink$/.exec(path)?.[1];
      if (name === undefined || name === 'alpha') continue;
      await check(
        `POST ${path}`,
        post(`/user/providers/${name}/unlink`, { current_password: minji.password }, minji.token),
      );
    }
    const alphaOnly = `b-${id}`;
    expectOk(
      await postForm(
        ctx.app,
        '/v1/auth/register',
        providerSignUp('alpha', alphaOnly, fake.issueAccessToken(alphaOnly)),
      ),
    );
    await check(
      'POST /auth/login/alpha',
      post('/auth/login/alpha', {
        alpha_user_id: alphaOnly,
        alpha_access_token: fake.issueAccessToken(alphaOnly),
      }),
    );
    // passkeys: added, listed, renamed, used to sign in and to re-authenticate, removed
    await checkPasskeyOperations(ctx.app, check, minji, ctx.config.webauthn.origins[0] as string);
    await checkGuardianOperations(ctx.app, ctx.database.handle, check, portone);
    // identity: another user, so that minji's examples below stay unverified
    await checkIdentityOperations(ctx.app, portone, check, await registerUser(ctx.app));
    await checkPhoneOperations(ctx.app, ctx.infrastructure.sms, solapi, check, await registerUser(ctx.app));
    // A known provider this deployment has not configured has no 200 to check: its login and link answer 503.
    for (const path of Object.keys(document.paths)) {
      if (!/^\/(auth\/login\/\w+|user\/providers\/\w+\/link)$/.test(path)) continue;
      if (exercised.has(`POST ${path}`) || path === '/auth/login/email') continue;
      const res = await post(path, {}, minji.token)();
      expect(res.statusCode, path).toBe(503);
      expect(res.json().data.status, path).toBe('provider_not_configured');
      exercised.add(`POST ${path}`);
    }

    // profile changes and email verification, after the provider examples (which show neither)
    await check('POST /user/update', post('/user/update', { bio: '안녕하세요' }, minji.token));
    await check('POST /user/email/resend', post('/user/email/resend', {}, minji.token));
    const verifyToken = await latestToken(ctx.database.handle, minji.email, 'email_verify');
    await check('POST /auth/email/verify', post('/auth/email/verify', { token: verifyToken }));

    // the profile picture (a separate user: the post author below has none, as the examples show)
    const pictured = await registerUser(ctx.app);
    const picture = await jpegFixture(1024, 768);
    await check('POST /user/profile-image/update', () =>
      postMultipart(
        ctx.app,
        '/v1/user/profile-image/update',
        {},
        { profile_picture: { filename: 'me.jpg', contentType: 'image/jpeg', data: picture } },
        bearer(pictured.token),
      ),
    );

    // posts
    const author = await registerUser(ctx.app);
    const created = await check(
      'POST /post/create',
      post('/post/create', { text: '오늘 날씨 좋네요' }, author.token),
    );
    const postId = (created.post as { id: string }).id;
    await check('POST /post/{id}/like', post(`/post/${postId}/like`, {}, author.token));
    await check('GET /post/single/{id}/raw', get(`/post/single/${postId}/raw`, author.token));
    await check('POST /post/single/{id}/raw', post(`/post/single/${postId}/raw`, {}, author.token));
    await check('POST /post/{id}/unlike', post(`/post/${postId}/unlike`, {}, author.token));
    await check('GET /post/raw/feed', get('/post/raw/feed?limit=100'));
    await check('POST /post/raw/feed', post('/post/raw/feed', { limit: '100' }));
    await check('POST /post/{id}/delete', post(`/post/${postId}/delete`, {}, author.token));

    // promotions, made the way an operator makes them
    const services = buildTestServices(ctx);
    await services.promotions.addBanner({
      title: '가을 이벤트',
      image_url: 'https://cdn.example.com/banners/autumn.jpg',
      link_url: 'https://example.com/events/autumn',
      position: '1',
      starts_at: '2026-01-01T00:00:00Z',
    });
    await services.promotions.addInspirer(author.id);
    await check('GET /promotions/banners', get('/promotions/banners'));
    await check('POST /promotions/banners', post('/promotions/banners'));
    await check('GET /promotions/inspirers', get('/promotions/inspirers'));
    await check('POST /promotions/inspirers', post('/promotions/inspirers'));

    // password reset, then the sessions: revoke one, log out, delete the account
    await check('POST /auth/password/forgot', post('/auth/password/forgot', { email: author.email }));
    await ctx.mailer.idle();
    const resetToken = await latestToken(ctx.database.handle, author.email, 'password_reset');
    const reset = await check(
      'POST /auth/password/reset',
      post('/auth/password/reset', { token: resetToken, password: `New-Harbour-${id}` }),
    );
    const fresh = (reset.user as { api_token: string }).api_token;
    // a code by email, typed back
    await check('POST /auth/email-code', post('/auth/email-code', { email: author.email, purpose: 'login' }));
    const code = codeFromText((await codeMails(ctx, author.email)).at(-1)?.text);
    await check(
      'POST /auth/email-code/verify',
      post('/auth/email-code/verify', { email: author.email, code }),
    );
    const second = expectOk<{ user: { api_token: string } }>(
      await postForm(ctx.app, '/v1/auth/login/email', { email: author.email, password: `New-Harbour-${id}` }),
    );
    const sessions = expectOk<{ tokens: Array<{ id: string; current: boolean }> }>(
      await get('/user/tokens', second.user.api_token)(),
    );
    const other = sessions.tokens.find((token) => !token.current);
    await check(
      'POST /user/tokens/{id}/revoke',
      post(`/user/tokens/${other?.id}/revoke`, {}, second.user.api_token),
    );
    expect(fresh).not.toBe(second.user.api_token);
    await check('POST /auth/logout', post('/auth/logout', {}, second.user.api_token));
    const started = await check(
      'POST /user/export',
      post('/user/export', { current_password: minji.password }, minji.token),
      202,
    );
    await ctx.dataExports.idle();
    await check('POST /user/reauth', post('/user/reauth', { current_password: minji.password }, minji.token));
    const exportId = (started.export as { id: string }).id;
    await check('GET /user/export/{id}', get(`/user/export/${exportId}`, minji.token));
    await check('GET /user/export', get('/user/export', minji.token));
    await check('POST /user/delete', post('/user/delete', { current_password: minji.password }, minji.token));
    // The deletion waits for its grace period: the mailed link takes it back.
    const cancelToken = await latestToken(ctx.database.handle, minji.email, 'deletion_scheduled');
    await check('POST /auth/deletion/cancel', post('/auth/deletion/cancel', { token: cancelToken }));
  });

  it('answers the second-factor operations as documented', async () => {
    // Codes of the steps before, at and after now: each works once.
    const minji = await registerUser(ctx.app);
    await awayFromStepEdge();
    const proof = { current_password: minji.password };
    const setup = await check('POST /user/2fa/totp/setup', post('/user/2fa/totp/setup', proof, minji.token));
    const secret = setup.secret as string;
    const enable = post('/user/2fa/totp/enable', { code: currentCode(secret, -1) }, minji.token);
    await check('POST /user/2fa/totp/enable', enable);
    await check('GET /user/2fa', get('/user/2fa', minji.token));
    const regenerate = post(
      '/user/2fa/recovery-codes/regenerate',
      { ...proof, code: currentCode(secret) },
      minji.token,
    );
    const codes = (await check('POST /user/2fa/recovery-codes/regenerate', regenerate))
      .recovery_codes as string[];
    const login = await postForm(ctx.app, '/v1/auth/login/email', {
      email: minji.email,
      password: minji.password,
    });
    const challenge = (login.json() as { data: { challenge: string } }).data.challenge;
    const complete = post('/auth/login/second-factor', { challenge, code: currentCode(secret, 1) });
    await check('POST /auth/login/second-factor', complete);
    const disable = post('/user/2fa/disable', { ...proof, recovery_code: codes[0] as string }, minji.token);
    await check('POST /user/2fa/disable', disable);
  });

  it('called every documented operation', () => {
    const documented = Object.entries(document.paths).flatMap(([path, operations]) =>
      Object.keys(operations).map((method) => `${method.toUpperCase()} ${path}`),
    );
    expect([...exercised].sort()).toEqual(documented.sort());
  });
});
