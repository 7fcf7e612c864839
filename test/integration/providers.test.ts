import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeProvider, startFakeProvider } from '../../src/dev/fake-provider.js';
import { closeTestApp, createTestApp, type TestApp } from '../helpers/app.js';
import { backends } from '../helpers/database.js';
import { bearer, registerUser, unique } from '../helpers/factories.js';
import { expectError, expectOk, expectValidationError, postForm, UNAUTHENTICATED } from '../helpers/http.js';
import {
  expectAuthenticationFailed,
  expectNoAccount,
  expectNotRegistered,
  providerLogin,
  providerSignUp,
} from '../helpers/providers.js';

type SignedIn = { user: Record<string, unknown> & { id: string; api_token: string; providers: string[] } };

/**
 * alpha: userinfo + tokeninfo with our client id; beta: OIDC ID tokens; gamma: userinfo without tokeninfo
 * (no register type). All three on one fake provider over real HTTP.
 */
describe.each(backends)('%s: identity providers', (backend) => {
  let fake: FakeProvider;
  let ctx: TestApp;

  beforeAll(async () => {
    fake = await startFakeProvider({ clientId: 'accounts-test' });
    const gamma = fake.env('gamma', 'userinfo');
    delete gamma.PROVIDER_GAMMA_TOKENINFO_URL;
    delete gamma.PROVIDER_GAMMA_CLIENT_ID;
    ctx = await createTestApp(backend, {
      ...fake.env('alpha', 'userinfo'),
      ...fake.env('beta', 'id-token'),
      ...gamma,
      // Fetch the JWKS again as soon as an unknown key id shows up (the rotation test).
      PROVIDER_JWKS_COOLDOWN_MS: '0',
    });
  });
  afterAll(async () => {
    if (ctx) await closeTestApp(ctx);
    if (fake) await fake.close();
  });

  const alphaToken = (id: string) => fake.issueAccessToken(id);
  /**
   * Links gamma identity `gammaId`, with a genuine token for it, to the account of `apiToken`; `proof` is the
   * re-authentication (`current_password`, or a linked provider's fresh credentials).
   */
  const linkGamma = (apiToken: string, gammaId: string, proof: Record<string, string>) =>
    postForm(
      ctx.app,
      '/v1/user/providers/gamma/link',
      { gamma_user_id: gammaId, gamma_access_token: fake.issueAccessToken(gammaId), ...proof },
      bearer(apiToken),
    );
  /** Fresh alpha credentials for `alphaId`: the re-authentication of a password-less alpha account. */
  const alphaProof = (alphaId: string) => ({
    alpha_user_id: alphaId,
    alpha_access_token: fake.issueAccessToken(alphaId),
  });
  const betaToken = (id: string) => fake.issueIdToken(id);

  async function signUp(provider: 'alpha' | 'beta', providerUserId: string): Promise<SignedIn> {
    const token = provider === 'alpha' ? alphaToken(providerUserId) : await betaToken(providerUserId);
    return expectOk<SignedIn>(
      await postForm(ctx.app, '/v1/auth/register', providerSignUp(provider, providerUserId, token)),
    );
  }

  describe('register and login, userinfo kind (alpha)', () => {
    it('registers a verified identity and logs it in with a new token', async () => {
      const alphaId = `a-${unique()}`;
      const fields = providerSignUp('alpha', alphaId, alphaToken(alphaId));
      const registered = expectOk<SignedIn>(await postForm(ctx.app, '/v1/auth/register', fields));
      expect(registered.user).toMatchObject({
        email: fields.email,
        username: fields.username,
        providers: ['alpha'],
        has_password: false,
      });
      expect(typeof registered.user.api_token).toBe('string');

      const login = expectOk<SignedIn>(await providerLogin(ctx.app, 'alpha', alphaId, alphaToken(alphaId)));
      expect(login.user.id).toBe(registered.user.id);
      expect(login.user.providers).toEqual(['alpha']);
      expect(login.user.api_token).not.toBe(registered.user.api_token);
      const me = await ctx.app.inject({
        method: 'GET',
        url: '/v1/user/get',
        headers: bearer(login.user.api_token),
      });
      expect(expectOk<SignedIn>(me).user.id).toBe(registered.user.id);
    });

    it('stores a password given with a provider sign-up', async () => {
      const alphaId = `a-${unique()}`;
      const fields = providerSignUp('alpha', alphaId, alphaToken(alphaId), {
        password: 'Quiet-Harbour-Lantern-7',
      });
      const registered = expectOk<SignedIn>(await postForm(ctx.app, '/v1/auth/register', fields));
      expect(registered.user.has_password).toBe(true);
      const login = await postForm(ctx.app, '/v1/auth/login/email', {
        email: fields.email,
        password: 'Quiet-Harbour-Lantern-7',
      });
      expect(expectOk<SignedIn>(login).user.id).toBe(registered.user.id);
    });

    it('answers not_registered for a verified identity with no account', async () => {
      const alphaId = `a-${unique()}`;
      expectNotRegistered(await providerLogin(ctx.app, 'alpha', alphaId, alphaToken(alphaId)));
    });

    it('refuses a token the provider does not know, at login and at sign-up (writing nothing)', async () => {
      const alphaId = `a-${unique()}`;
      expectAuthenticationFailed(await providerLogin(ctx.app, 'alpha', alphaId, 'made-up-token'));
      const fields = providerSignUp('alpha', alphaId, 'made-up-token');
      expectAuthenticationFailed(await postForm(ctx.app, '/v1/auth/register', fields));
      await expectNoAccount(ctx.app, fields.email);
    });

    it('refuses a token another app obtained for the same person', async () => {
      const alphaId = `a-${unique()}`;
      await signUp('alpha', alphaId);
      const foreign = fake.issueAccessToken(alphaId, { clientId: 'someone-elses-app' });
      expectAuthenticationFailed(await providerLogin(ctx.app, 'alpha', alphaId, foreign));
      const otherId = `a-${unique()}`;
      const fields = providerSignUp('alpha', otherId, fake.issueAccessToken(otherId, { clientId: 'other' }));
      expectAuthenticationFailed(await postForm(ctx.app, '/v1/auth/register', fields));
      await expectNoAccount(ctx.app, fields.email);
    });

    it('refuses a genuine token of someone else than the claimed user', async () => {
      const victim = `a-${unique()}`;
      await signUp('alpha', victim);
      const attacker = `a-${unique()}`;
      expectAuthenticationFailed(await providerLogin(ctx.app, 'alpha', victim, alphaToken(attacker)));
    });

    it('refuses an identity already linked to an account with 422 on alpha_user_id', async () => {
      const alphaId = `a-${unique()}`;
      await signUp('alpha', alphaId);
      const fields = providerSignUp('alpha', alphaId, alphaToken(alphaId));
      expectValidationError(await postForm(ctx.app, '/v1/auth/register', fields), {
        alpha_user_id: ['The alpha user id has already been taken.'],
      });
      await expectNoAccount(ctx.app, fields.email);
    });

    it('reports rule failures before asking the provider', async () => {
      const res = await postForm(ctx.app, '/v1/auth/register', {
        ...providerSignUp('alpha', 'x', 'not-checked'),
        email: 'not-an-email',
        alpha_user_id: undefined,
      });
      expectValidationError(res, {
        email: ['The email must be a valid email address.'],
        alpha_user_id: ['The alpha user id field is required when type is alpha.'],
      });
    });

    it.each(['tok\nen', 'tök', 'two words'])(
      'refuses a token no Authorization header can carry (%j) as input, without asking the provider',
      async (token) => {
        expectValidationError(await providerLogin(ctx.app, 'alpha', 'someone', token), {
          alpha_access_token: ['The alpha access token format is invalid.'],
        });
      },
    );

    it('requires both credentials at login', async () => {
      expectValidationError(await postForm(ctx.app, '/v1/auth/login/alpha', {}), {
        alpha_user_id: ['The alpha user id field is required.'],
        alpha_access_token: ['The alpha access token field is required.'],
      });
    });

    it('lets exactly one of two simultaneous sign-ups of one identity through', async () => {
      const alphaId = `a-${unique()}`;
      const first = providerSignUp('alpha', alphaId, alphaToken(alphaId));
      const second = providerSignUp('alpha', alphaId, alphaToken(alphaId));
      const results = await Promise.all([
        postForm(ctx.app, '/v1/auth/register', first),
        postForm(ctx.app, '/v1/auth/register', second),
      ]);
      const statuses = results.map((res) => res.statusCode).sort();
      expect(statuses).toEqual([200, 422]);
      const loser = results.find((res) => res.statusCode === 422);
      if (!loser) throw new Error('no 422');
      expectValidationError(loser, { alpha_user_id: ['The alpha user id has already been taken.'] });
      const loserFields = loser === results[0] ? first : second;
      await expectNoAccount(ctx.app, loserFields.email);
    });
  });

  describe('register and login, id-token kind (beta)', () => {
    it('registers with an ID token and logs in with a fresh one', async () => {
      const betaId = `b-${unique()}`;
      const registered = await signUp('beta', betaId);
      expect(registered.user.providers).toEqual(['beta']);
      const login = expectOk<SignedIn>(await providerLogin(ctx.app, 'beta', betaId, await betaToken(betaId)));
      expect(login.user.id).toBe(registered.user.id);
    });

    it('answers not_registered for a valid ID token with no account', async () => {
      const betaId = `b-${unique()}`;
      expectNotRegistered(await providerLogin(ctx.app, 'beta', betaId, await betaToken(betaId)));
    });

    it.each([
      ['expired', { expiresIn: -3600 }],
      ['signed by a key the provider does not publish', { signer: 'foreign' as const }],
      ['issued for another audience', { audience: 'someone-elses-app' }],
      ['issued by another issuer', { issuer: 'https://issuer.invalid' }],
    ])('refuses an ID token %s', async (_label, options) => {
      const betaId = `b-${unique()}`;
      await signUp('beta', betaId);
      expectAuthenticationFailed(
        await providerLogin(ctx.app, 'beta', betaId, await fake.issueIdToken(betaId, options)),
      );
      const otherId = `b-${unique()}`;
      const fields = providerSignUp('beta', otherId, await fake.issueIdToken(otherId, options));
      expectAuthenticationFailed(await postForm(ctx.app, '/v1/auth/register', fields));
      await expectNoAccount(ctx.app, fields.email);
    });

    it('refuses an ID token whose subject is not the claimed user, and one that is not a JWT', async () => {
      const betaId = `b-${unique()}`;
      await signUp('beta', betaId);
      expectAuthenticationFailed(
        await providerLogin(ctx.app, 'beta', betaId, await betaToken(`b-${unique()}`)),
      );
      expectAuthenticationFailed(await providerLogin(ctx.app, 'beta', betaId, 'not.a.jwt'));
    });

    it('follows a key rotation: the new key works, the retired one no longer does', async () => {
      const betaId = `b-${unique()}`;
      await signUp('beta', betaId);
      const signedBefore = await betaToken(betaId);
      expectOk(await providerLogin(ctx.app, 'beta', betaId, signedBefore));
      await fake.rotateKey();
      expectOk(await providerLogin(ctx.app, 'beta', betaId, await betaToken(betaId)));
      expectAuthenticationFailed(await providerLogin(ctx.app, 'beta', betaId, signedBefore));
    });
  });

  it('documents the routes of the configured providers in OpenAPI', async () => {
    const document = (await ctx.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    const paths = Object.keys(document.paths);
    for (const name of ['alpha', 'beta', 'gamma']) {
      expect(paths).toContain(`/auth/login/${name}`);
      expect(paths).toContain(`/user/providers/${name}/link`);
      expect(paths).toContain(`/user/providers/${name}/unlink`);
    }
    const register = document.paths['/auth/register'].post;
    expect(JSON.stringify(register)).toContain('"enum":["email","alpha","beta"]');
  });

  describe('link and unlink', () => {
    it('links gamma to an email account, which can then log in with gamma', async () => {
      const user = await registerUser(ctx.app);
      const gammaId = `g-${unique()}`;
      const linked = expectOk<SignedIn>(
        await linkGamma(user.token, gammaId, { current_password: user.password }),
      );
      expect(linked.user.providers).toEqual(['gamma']);
      expect(linked.user).not.toHaveProperty('api_token');
      const login = expectOk<SignedIn>(
        await providerLogin(ctx.app, 'gamma', gammaId, fake.issueAccessToken(gammaId)),
      );
      expect(login.user.id).toBe(user.id);
      // Linking the same identity again changes nothing.
      const again = await linkGamma(user.token, gammaId, { current_password: user.password });
      expect(expectOk<SignedIn>(again).user.providers).toEqual(['gamma']);
    });

    it('lists several providers in name order', async () => {
      const alphaId = `a-${unique()}`;
      const registered = await signUp('alpha', alphaId);
      const gammaId = `g-${unique()}`;
      await linkGamma(registered.user.api_token, gammaId, alphaProof(alphaId));
      const betaId = `b-${unique()}`;
      const res = await postForm(
        ctx.app,
        '/v1/user/providers/beta/link',
        { beta_user_id: betaId, beta_access_token: await betaToken(betaId), ...alphaProof(alphaId) },
        bearer(registered.user.api_token),
      );
      expect(expectOk<SignedIn>(res).user.providers).toEqual(['alpha', 'beta', 'gamma']);
    });

    it('refuses an identity linked to another account, and a second identity of one provider', async () => {
      const owner = await registerUser(ctx.app);
      const gammaId = `g-${unique()}`;
      expectOk(await linkGamma(owner.token, gammaId, { current_password: owner.password }));
      const other = await registerUser(ctx.app);
      expectValidationError(await linkGamma(other.token, gammaId, { current_password: other.password }), {
        gamma_user_id: ['The gamma user id has already been taken.'],
      });
      const secondId = `g-${unique()}`;
      expectValidationError(await linkGamma(owner.token, secondId, { current_password: owner.password }), {
        gamma_user_id: ['Another gamma account is already linked; unlink it first.'],
      });
    });

    it('refuses to link an identity the provider does not vouch for', async () => {
      const user = await registerUser(ctx.app);
      const gammaId = `g-${unique()}`;
      expectAuthenticationFailed(
        await postForm(
          ctx.app,
          '/v1/user/providers/gamma/link',
          {
            gamma_user_id: gammaId,
            gamma_access_token: fake.issueAccessToken(`g-${unique()}`),
            current_password: user.password,
          },
          bearer(user.token),
        ),
      );
    });

    it('unlinks, and never the last way to sign in', async () => {
      const alphaId = `a-${unique()}`;
      const registered = await signUp('alpha', alphaId);
      const auth = bearer(registered.user.api_token);
      expectValidationError(
        await postForm(ctx.app, '/v1/user/providers/alpha/unlink', alphaProof(alphaId), auth),
        {
          provider: [
            'The alpha account is the only way to sign in; set a password or link another provider first.',
          ],
        },
      );
      const gammaId = `g-${unique()}`;
      expectOk(await linkGamma(registered.user.api_token, gammaId, alphaProof(alphaId)));
      const unlinked = expectOk<SignedIn>(
        await postForm(ctx.app, '/v1/user/providers/alpha/unlink', alphaProof(alphaId), auth),
      );
      expect(unlinked.user.providers).toEqual(['gamma']);
      expectNotRegistered(await providerLogin(ctx.app, 'alpha', alphaId, alphaToken(alphaId)));
      const gammaProof = { gamma_user_id: gammaId, gamma_access_token: fake.issueAccessToken(gammaId) };
      expectValidationError(await postForm(ctx.app, '/v1/user/providers/gamma/unlink', gammaProof, auth), {
        provider: [
          'The gamma account is the only way to sign in; set a password or link another provider first.',
        ],
      });
      // Unlinking a provider that is not linked changes nothing.
      expect(
        expectOk<SignedIn>(await postForm(ctx.app, '/v1/user/providers/beta/unlink', gammaProof, auth)).user
          .providers,
      ).toEqual(['gamma']);
    });

    it('lets a user with a password unlink their only provider', async () => {
      const user = await registerUser(ctx.app);
      const gammaId = `g-${unique()}`;
      const auth = bearer(user.token);
      expectOk(await linkGamma(user.token, gammaId, { current_password: user.password }));
      const res = await postForm(
        ctx.app,
        '/v1/user/providers/gamma/unlink',
        { current_password: user.password },
        auth,
      );
      expect(expectOk<SignedIn>(res).user.providers).toEqual([]);
    });

    it('keeps one way to sign in when two unlinks race', async () => {
      const alphaId = `a-${unique()}`;
      const registered = await signUp('alpha', alphaId);
      const auth = bearer(registered.user.api_token);
      const gammaId = `g-${unique()}`;
      expectOk(await linkGamma(registered.user.api_token, gammaId, alphaProof(alphaId)));
      const results = await Promise.all([
        postForm(ctx.app, '/v1/user/providers/alpha/unlink', alphaProof(alphaId), auth),
        postForm(ctx.app, '/v1/user/providers/gamma/unlink', alphaProof(alphaId), auth),
      ]);
      expect(results.map((res) => res.statusCode).sort()).toEqual([200, 422]);
      const me = await ctx.app.inject({ method: 'GET', url: '/v1/user/get', headers: auth });
      expect(expectOk<SignedIn>(me).user.providers).toHaveLength(1);
    });

    it('explains the last-method refusal in Korean when asked', async () => {
      const alphaId = `a-${unique()}`;
      const registered = await signUp('alpha', alphaId);
      const res = await postForm(ctx.app, '/v1/user/providers/alpha/unlink', alphaProof(alphaId), {
        ...bearer(registered.user.api_token),
        'accept-language': 'ko-KR,ko;q=0.9',
      });
      expectValidationError(res, {
        provider: [
          'alpha 계정은 유일한 로그인 수단입니다. 먼저 비밀번호를 설정하거나 다른 계정을 연결하세요.',
        ],
      });
    });

    it('requires a signed-in user', async () => {
      expectError(await postForm(ctx.app, '/v1/user/providers/gamma/link', {}), 401, ...UNAUTHENTICATED);
      expectError(await postForm(ctx.app, '/v1/user/providers/gamma/unlink', {}), 401, ...UNAUTHENTICATED);
    });
  });
});
