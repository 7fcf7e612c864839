import { describe, expect, it } from 'vitest';
import { backends } from '../helpers/database.js';
import { bearer, unique } from '../helpers/factories.js';
import { expectOk, expectValidationError, postForm } from '../helpers/http.js';
import { type SignedIn, useProviderApp } from '../helpers/provider-app.js';
import {
  expectAuthenticationFailed,
  expectNoAccount,
  expectNotRegistered,
  providerLogin,
  providerSignUp,
} from '../helpers/providers.js';

/** Register and log in with each kind of identity provider (test/helpers/provider-app.ts). */
describe.each(backends)('%s: identity providers', (backend) => {
  const idp = useProviderApp(backend);
  const { ctx, alphaToken, betaToken, signUp } = idp;

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
      const foreign = idp.fake.issueAccessToken(alphaId, { clientId: 'someone-elses-app' });
      expectAuthenticationFailed(await providerLogin(ctx.app, 'alpha', alphaId, foreign));
      const otherId = `a-${unique()}`;
      const fields = providerSignUp(
        'alpha',
        otherId,
        idp.fake.issueAccessToken(otherId, { clientId: 'other' }),
      );
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
        await providerLogin(ctx.app, 'beta', betaId, await idp.fake.issueIdToken(betaId, options)),
      );
      const otherId = `b-${unique()}`;
      const fields = providerSignUp('beta', otherId, await idp.fake.issueIdToken(otherId, options));
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
      await idp.fake.rotateKey();
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
    expect(JSON.stringify(register)).toContain('"enum":["email","email_code","alpha","beta"]');
  });
});
