import { describe, expect, it } from 'vitest';
import { backends } from '../helpers/database.js';
import { bearer, registerUser, unique } from '../helpers/factories.js';
import { expectError, expectOk, expectValidationError, postForm, UNAUTHENTICATED } from '../helpers/http.js';
import { type SignedIn, useProviderApp } from '../helpers/provider-app.js';
import { expectAuthenticationFailed, expectNotRegistered, providerLogin } from '../helpers/providers.js';

/** Link and unlink identity providers on an account (test/helpers/provider-app.ts). */
describe.each(backends)('%s: identity providers, link and unlink', (backend) => {
  const idp = useProviderApp(backend);
  const { ctx, alphaToken, betaToken, signUp } = idp;
  /**
   * Links gamma identity `gammaId`, with a genuine token for it, to the account of `apiToken`; `proof` is the
   * re-authentication (`current_password`, or a linked provider's fresh credentials).
   */
  const linkGamma = (apiToken: string, gammaId: string, proof: Record<string, string>) =>
    postForm(
      ctx.app,
      '/v1/user/providers/gamma/link',
      { gamma_user_id: gammaId, gamma_access_token: idp.fake.issueAccessToken(gammaId), ...proof },
      bearer(apiToken),
    );
  /** Fresh alpha credentials for `alphaId`: the re-authentication of a password-less alpha account. */
  const alphaProof = (alphaId: string) => ({
    alpha_user_id: alphaId,
    alpha_access_token: idp.fake.issueAccessToken(alphaId),
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
        await providerLogin(ctx.app, 'gamma', gammaId, idp.fake.issueAccessToken(gammaId)),
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
            gamma_access_token: idp.fake.issueAccessToken(`g-${unique()}`),
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
      const gammaProof = { gamma_user_id: gammaId, gamma_access_token: idp.fake.issueAccessToken(gammaId) };
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
