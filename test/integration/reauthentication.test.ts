import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeProvider, startFakeProvider } from '../../src/dev/fake-provider.js';
import { closeTestApp, createTestApp, type TestApp } from '../helpers/app.js';
import { expectTooManyRequests } from '../helpers/client-requests.js';
import { backends } from '../helpers/database.js';
import { bearer, registerUser, unique } from '../helpers/factories.js';
import { expectOk, expectValidationError, postForm } from '../helpers/http.js';
import { expectProviderUnavailable, providerLogin, providerSignUp } from '../helpers/providers.js';

type SignedIn = {
  user: Record<string, unknown> & { id: string; api_token: string; providers: string[]; email: string };
};

const ALPHA_PROOF_REQUIRED = {
  alpha_user_id: ['The alpha user id field is required.'],
  alpha_access_token: ['The alpha access token field is required.'],
};

/**
 * A stolen session (an api_token and nothing else) must not be enough to take an account: every change that
 * moves how the account signs in asks for the present password or a fresh token of a linked provider.
 */
describe.each(backends)('%s: re-authentication', (backend) => {
  let fake: FakeProvider;
  let ctx: TestApp;

  beforeAll(async () => {
    fake = await startFakeProvider({ clientId: 'accounts-test' });
    const gamma = fake.env('gamma', 'userinfo');
    delete gamma.PROVIDER_GAMMA_TOKENINFO_URL;
    delete gamma.PROVIDER_GAMMA_CLIENT_ID;
    ctx = await createTestApp(backend, { ...fake.env('alpha', 'userinfo'), ...gamma });
  });
  afterAll(async () => {
    if (ctx) await closeTestApp(ctx);
    if (fake) await fake.close();
  });

  const post = (path: string, token: string, body: Record<string, string>, headers = {}) =>
    postForm(ctx.app, `/v1${path}`, body, { ...bearer(token), ...headers });
  const me = async (token: string) =>
    expectOk<SignedIn>(await ctx.app.inject({ method: 'GET', url: '/v1/user/get', headers: bearer(token) }))
      .user;
  const alphaProof = (alphaId: string) => ({
    alpha_user_id: alphaId,
    alpha_access_token: fake.issueAccessToken(alphaId),
  });

  async function alphaAccount() {
    const alphaId = `a-${unique()}`;
    const fields = providerSignUp('alpha', alphaId, fake.issueAccessToken(alphaId));
    const signedIn = expectOk<SignedIn>(await postForm(ctx.app, '/v1/auth/register', fields));
    return { alphaId, email: fields.email, token: signedIn.user.api_token };
  }

  describe('a provider-only account, with a stolen session', () => {
    it('refuses each step of the takeover; the owner still signs in with alpha at the end', async () => {
      const owner = await alphaAccount();
      const stolen = owner.token;
      const thiefGamma = `g-${unique()}`;
      const thiefPassword = `Thief-Passphrase-${unique()}`;

      // 1. Set a password (then the thief could sign in with the email).
      expectValidationError(
        await post('/user/update', stolen, { password: thiefPassword }),
        ALPHA_PROOF_REQUIRED,
      );
      // 2. Change the email (then the owner's recovery goes to the thief).
      const thiefEmail = `thief${unique()}@example.com`;
      expectValidationError(await post('/user/update', stolen, { email: thiefEmail }), ALPHA_PROOF_REQUIRED);
      // 3. Link the thief's own identity (a way in that outlives the session).
      expectValidationError(
        await post('/user/providers/gamma/link', stolen, {
          gamma_user_id: thiefGamma,
          gamma_access_token: fake.issueAccessToken(thiefGamma),
        }),
        ALPHA_PROOF_REQUIRED,
      );
      // 4. Unlink the owner's provider (the owner's only way back in).
      expectValidationError(await post('/user/providers/alpha/unlink', stolen, {}), ALPHA_PROOF_REQUIRED);

      // A genuine token of the thief's own alpha identity is no proof for the owner's account.
      const thiefAlpha = `a-${unique()}`;
      expectValidationError(
        await post('/user/update', stolen, { password: thiefPassword, ...alphaProof(thiefAlpha) }),
        { alpha_access_token: ['The alpha access token is incorrect.'] },
      );
      // Nor is a made-up token for the owner's identity.
      expectValidationError(
        await post('/user/update', stolen, {
          email: thiefEmail,
          alpha_user_id: owner.alphaId,
          alpha_access_token: 'made-up-token',
        }),
        { alpha_access_token: ['The alpha access token is incorrect.'] },
      );

      const after = await me(stolen);
      expect(after).toMatchObject({ email: owner.email, has_password: false, providers: ['alpha'] });
      const login = await providerLogin(
        ctx.app,
        'alpha',
        owner.alphaId,
        fake.issueAccessToken(owner.alphaId),
      );
      expect(expectOk<SignedIn>(login).user.email).toBe(owner.email);
      expect(
        (await postForm(ctx.app, '/v1/auth/login/email', { email: owner.email, password: thiefPassword }))
          .statusCode,
      ).toBe(401);
    });

    it('lets the owner do each step with a fresh token of the linked identity', async () => {
      const owner = await alphaAccount();
      const password = `Owner-Passphrase-${unique()}`;
      const updated = expectOk<SignedIn>(
        await post('/user/update', owner.token, { password, ...alphaProof(owner.alphaId) }),
      );
      expect(updated.user.has_password).toBe(true);
      expectOk(await postForm(ctx.app, '/v1/auth/login/email', { email: owner.email, password }));
      // From now on the account has a password, and that is the proof it asks for.
      const email = `moved${unique()}@example.com`;
      expectValidationError(
        await post('/user/update', owner.token, { email, ...alphaProof(owner.alphaId) }),
        {
          current_password: ['The current password field is required.'],
        },
      );
      expectOk(await post('/user/update', owner.token, { email, current_password: password }));
    });

    it('links with a linked identity as proof, and unlinks with any linked one', async () => {
      const owner = await alphaAccount();
      const gammaId = `g-${unique()}`;
      const linked = expectOk<SignedIn>(
        await post('/user/providers/gamma/link', owner.token, {
          gamma_user_id: gammaId,
          gamma_access_token: fake.issueAccessToken(gammaId),
          ...alphaProof(owner.alphaId),
        }),
      );
      expect(linked.user.providers).toEqual(['alpha', 'gamma']);
      const gammaProof = { gamma_user_id: gammaId, gamma_access_token: fake.issueAccessToken(gammaId) };
      const unlinked = expectOk<SignedIn>(
        await post('/user/providers/alpha/unlink', owner.token, gammaProof),
      );
      expect(unlinked.user.providers).toEqual(['gamma']);
    });

    it('answers 502 when the provider cannot confirm, and counts no guess', async () => {
      const owner = await alphaAccount();
      fake.failWith('http-500');
      try {
        expectProviderUnavailable(
          await post('/user/update', owner.token, {
            email: `x${unique()}@example.com`,
            ...alphaProof(owner.alphaId),
          }),
        );
      } finally {
        fake.failWith(undefined);
      }
      expect((await me(owner.token)).email).toBe(owner.email);
    });

    it('names the missing proof in Korean when asked', async () => {
      const owner = await alphaAccount();
      expectValidationError(
        await post('/user/providers/alpha/unlink', owner.token, {}, { 'accept-language': 'ko' }),
        {
          alpha_user_id: ['alpha 사용자 ID 필드는 필수입니다.'],
          alpha_access_token: ['alpha 액세스 토큰 필드는 필수입니다.'],
        },
      );
    });
  });

  describe('an account with a password, with a stolen session', () => {
    it('refuses linking and unlinking without the current password, and with a wrong one', async () => {
      const owner = await registerUser(ctx.app);
      const thiefGamma = `g-${unique()}`;
      const link = (proof: Record<string, string>) =>
        post('/user/providers/gamma/link', owner.token, {
          gamma_user_id: thiefGamma,
          gamma_access_token: fake.issueAccessToken(thiefGamma),
          ...proof,
        });
      expectValidationError(await link({}), {
        current_password: ['The current password field is required.'],
      });
      expectValidationError(await link({ current_password: 'Not-The-Password-1' }), {
        current_password: ['The current password is incorrect.'],
      });
      expect((await me(owner.token)).providers).toEqual([]);
      expectOk(await link({ current_password: owner.password }));
      expectValidationError(await post('/user/providers/gamma/unlink', owner.token, {}), {
        current_password: ['The current password field is required.'],
      });
      expect((await me(owner.token)).providers).toEqual(['gamma']);
    });
  });
});

describe.each(backends)('%s: re-authentication guesses are throttled per account', (backend) => {
  let fake: FakeProvider;
  let ctx: TestApp;

  beforeAll(async () => {
    fake = await startFakeProvider({ clientId: 'accounts-test' });
    ctx = await createTestApp(backend, {
      ...fake.env('alpha', 'userinfo'),
      RATE_LIMIT_ENABLED: 'true',
      RATE_LIMIT_LOGIN_FAILURES: '3/15m',
    });
  });
  afterAll(async () => {
    if (ctx) await closeTestApp(ctx);
    if (fake) await fake.close();
  });

  it('answers 429 after the limit of wrong provider proofs, even for a right one', async () => {
    const alphaId = `a-${unique()}`;
    const signedIn = expectOk<SignedIn>(
      await postForm(
        ctx.app,
        '/v1/auth/register',
        providerSignUp('alpha', alphaId, fake.issueAccessToken(alphaId)),
      ),
    );
    const attempt = (accessToken: string) =>
      postForm(
        ctx.app,
        '/v1/user/update',
        { password: `New-Passphrase-${unique()}`, alpha_user_id: alphaId, alpha_access_token: accessToken },
        bearer(signedIn.user.api_token),
      );
    for (let i = 0; i < 3; i++) {
      expectValidationError(await attempt(`guess-${i}`), {
        alpha_access_token: ['The alpha access token is incorrect.'],
      });
    }
    expectTooManyRequests(await attempt(fake.issueAccessToken(alphaId)), 15 * 60);
    expect(
      expectOk<SignedIn>(
        await ctx.app.inject({
          method: 'GET',
          url: '/v1/user/get',
          headers: bearer(signedIn.user.api_token),
        }),
      ).user.has_password,
    ).toBe(false);
  });
});
