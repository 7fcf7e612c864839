import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type FakeProvider, startFakeProvider } from '../../src/dev/fake-provider.js';
import { closeTestApp, createTestApp, type TestApp } from '../helpers/app.js';
import { backends } from '../helpers/database.js';
import { bearer, registerUser, unique } from '../helpers/factories.js';
import { expectError, expectValidationError, postForm } from '../helpers/http.js';
import { logSink } from '../helpers/logs.js';
import {
  expectAuthenticationFailed,
  expectNoAccount,
  expectNotRegistered,
  expectProviderUnavailable,
  providerLogin,
  providerSignUp,
} from '../helpers/providers.js';

/** A port with nothing listening on it: a server is started to get a free port, then closed. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/**
 * A provider that fails in every way it can: 500s, HTML, silence past the timeout, answers without the id,
 * and a provider that is not there at all. Every one is a 502 and writes nothing; none is a 500.
 */
describe.each(backends)('%s: identity provider failures', (backend) => {
  let fake: FakeProvider;
  let ctx: TestApp;

  beforeAll(async () => {
    fake = await startFakeProvider({ clientId: 'accounts-test' });
    const port = await closedPort();
    ctx = await createTestApp(backend, {
      ...fake.env('alpha', 'userinfo'),
      ...fake.env('beta', 'id-token'),
      PROVIDER_GAMMA_KIND: 'userinfo',
      PROVIDER_GAMMA_USERINFO_URL: `http://127.0.0.1:${port}/userinfo`,
      // Short, so the stall test ends quickly; the stalled provider never answers at all.
      PROVIDER_TIMEOUT_MS: '300',
    });
  });
  afterEach(() => fake.failWith(undefined));
  afterAll(async () => {
    if (ctx) await closeTestApp(ctx);
    if (fake) await fake.close();
  });

  it.each([
    ['answers 500', 'http-500'],
    ['answers HTML', 'html'],
    ['does not answer within PROVIDER_TIMEOUT_MS', 'stall'],
    ['answers JSON without the user id', 'missing-id'],
  ] as const)('is a 502 when the userinfo provider %s', async (_label, mode) => {
    const alphaId = `a-${unique()}`;
    const token = fake.issueAccessToken(alphaId);
    fake.failWith(mode);
    expectProviderUnavailable(await providerLogin(ctx.app, 'alpha', alphaId, token));
    const fields = providerSignUp('alpha', alphaId, token);
    expectProviderUnavailable(await postForm(ctx.app, '/v1/auth/register', fields));
    fake.failWith(undefined);
    await expectNoAccount(ctx.app, fields.email);
    // Once the provider recovers, the same sign-up goes through.
    const recovered = await postForm(ctx.app, '/v1/auth/register', fields);
    expect(recovered.statusCode).toBe(200);
  });

  it.each([
    ['answers 500', 'http-500'],
    ['answers HTML', 'html'],
    ['does not answer within PROVIDER_TIMEOUT_MS', 'stall'],
  ] as const)('is a 502 when the JWKS endpoint %s', async (_label, mode) => {
    const betaId = `b-${unique()}`;
    fake.failWith(mode);
    // A new key id each time, so the service has to fetch the JWKS (and cannot use a cached copy).
    await fake.rotateKey();
    const token = await fake.issueIdToken(betaId);
    expectProviderUnavailable(await providerLogin(ctx.app, 'beta', betaId, token));
    const fields = providerSignUp('beta', betaId, token);
    expectProviderUnavailable(await postForm(ctx.app, '/v1/auth/register', fields));
    await expectNoAccount(ctx.app, fields.email);
  });

  it('is a 502 when the provider refuses connections', async () => {
    expectProviderUnavailable(await providerLogin(ctx.app, 'gamma', 'g-1', 'any-token'));
  });

  it('still tells a refused token apart from an unreachable provider', async () => {
    const alphaId = `a-${unique()}`;
    expectAuthenticationFailed(await providerLogin(ctx.app, 'alpha', alphaId, 'unknown-token'));
    expectNotRegistered(await providerLogin(ctx.app, 'alpha', alphaId, fake.issueAccessToken(alphaId)));
  });
});

describe.each(backends)('%s: providers that are not configured', (backend) => {
  let ctx: TestApp;
  let lines: string[];
  beforeAll(async () => {
    const sink = logSink();
    lines = sink.lines;
    ctx = await createTestApp(backend, { LOG_LEVEL: 'info' }, { logStream: sink.stream });
  });
  afterAll(async () => {
    if (ctx) await closeTestApp(ctx);
  });

  it('answers their login and link routes with a 503 naming the variables to set', async () => {
    const user = await registerUser(ctx.app);
    for (const name of ['alpha', 'beta', 'gamma']) {
      const prefix = `PROVIDER_${name.toUpperCase()}_`;
      const notConfigured = {
        status: 'provider_not_configured',
        provider: name,
        variables: {
          userinfo: [`${prefix}USERINFO_URL`],
          'id-token': [`${prefix}JWKS_URL`, `${prefix}ISSUER`, `${prefix}AUDIENCE`],
        },
      };
      const credentials = { [`${name}_user_id`]: 'a-1', [`${name}_access_token`]: 'token' };
      const calls: Array<[string, Record<string, string>, Record<string, string>]> = [
        [`/v1/auth/login/${name}`, credentials, {}],
        [
          `/dev/user/providers/${name}/link`,
          { ...credentials, current_password: user.password },
          bearer(user.token),
        ],
        // Before validation: no parameter could make the request succeed, so none is reported missing.
        [`/v1/auth/login/${name}`, {}, {}],
        [`/v1/user/providers/${name}/link`, {}, bearer(user.token)],
      ];
      for (const [url, fields, headers] of calls) {
        expectError(
          await postForm(ctx.app, url, fields, headers),
          503,
          'ServiceUnavailableHttpException',
          'Identity provider not configured.',
          notConfigured,
        );
      }
    }
    // An answer, not a fault: logged as a refusal naming the provider, never as an error a client could raise.
    const entries = lines.map(
      (line) => JSON.parse(line) as { level: number; msg: string; provider?: string },
    );
    expect(entries.filter((entry) => entry.level >= 50)).toEqual([]);
    expect(entries).toContainEqual(
      expect.objectContaining({ level: 30, msg: 'request refused', provider: 'gamma' }),
    );
    // After authentication: an anonymous link gets the 401 of every protected route, and says nothing more.
    expectError(
      await postForm(ctx.app, '/v1/user/providers/beta/link', {}),
      401,
      'AuthenticationException',
      'Unauthenticated.',
      { status: 'unauthenticated' },
    );
  });

  it('refuses them as a register type, and still requires their fields', async () => {
    const fields = providerSignUp('alpha', 'a-1', 'token');
    expectValidationError(await postForm(ctx.app, '/v1/auth/register', fields), {
      type: ['The selected type is invalid.'],
    });
    const { beta_user_id: _omitted, ...withoutId } = providerSignUp('beta', 'b-1', 'token');
    expectValidationError(await postForm(ctx.app, '/v1/auth/register', withoutId), {
      type: ['The selected type is invalid.'],
      beta_user_id: ['The beta user id field is required when type is beta.'],
    });
  });
});

describe.each(backends)('%s: renamed providers', (backend) => {
  let fake: FakeProvider;
  let ctx: TestApp;
  beforeAll(async () => {
    fake = await startFakeProvider({ clientId: 'accounts-test' });
    ctx = await createTestApp(backend, {
      PROVIDERS: 'kakao,apple',
      REGISTER_PROVIDERS: 'kakao',
      ...fake.env('kakao', 'userinfo'),
      ...fake.env('apple', 'id-token'),
    });
  });
  afterAll(async () => {
    if (ctx) await closeTestApp(ctx);
    if (fake) await fake.close();
  });

  it('derives parameter names and routes from the configured names', async () => {
    const kakaoId = `k-${unique()}`;
    const res = await postForm(
      ctx.app,
      '/v1/auth/register',
      providerSignUp('kakao', kakaoId, fake.issueAccessToken(kakaoId)),
    );
    expect(res.statusCode).toBe(200);
    expect(res.json().data.user.providers).toEqual(['kakao']);
    expect((await providerLogin(ctx.app, 'kakao', kakaoId, fake.issueAccessToken(kakaoId))).statusCode).toBe(
      200,
    );
    expectNotRegistered(await providerLogin(ctx.app, 'apple', 'ap-1', await fake.issueIdToken('ap-1')));
    // A name outside PROVIDERS is no provider at all: its routes do not exist.
    expectError(
      await postForm(ctx.app, '/v1/auth/login/alpha', {}),
      404,
      'NotFoundHttpException',
      'Not Found',
    );
    expectValidationError(
      await postForm(ctx.app, '/v1/auth/register', providerSignUp('apple', 'ap-2', 't')),
      {
        type: ['The selected type is invalid.'],
      },
    );
  });
});
