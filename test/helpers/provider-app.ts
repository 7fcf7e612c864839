import type { FastifyInstance } from 'fastify';
import { type FakeProvider, startFakeProvider } from '../../src/dev/fake-provider.js';
import { closeTestApp, createTestApp, type TestApp } from './app.js';
import type { Backend } from './database.js';
import { expectOk, postForm } from './http.js';
import { providerSignUp } from './providers.js';

export type SignedIn = {
  user: Record<string, unknown> & { id: string; api_token: string; providers: string[] };
};

export interface ProviderApp {
  ctx: TestApp;
  fake: FakeProvider;
}

/**
 * An app with all three identity providers on one fake provider over real HTTP. alpha: userinfo + tokeninfo
 * with our client id; beta: OIDC ID tokens; gamma: userinfo without tokeninfo (no register type).
 */
export async function startProviderApp(backend: Backend): Promise<ProviderApp> {
  const fake = await startFakeProvider({ clientId: 'accounts-test' });
  const gamma = fake.env('gamma', 'userinfo');
  delete gamma.PROVIDER_GAMMA_TOKENINFO_URL;
  delete gamma.PROVIDER_GAMMA_CLIENT_ID;
  const ctx = await createTestApp(backend, {
    ...fake.env('alpha', 'userinfo'),
    ...fake.env('beta', 'id-token'),
    ...gamma,
    // Fetch the JWKS again as soon as an unknown key id shows up (the rotation test).
    PROVIDER_JWKS_COOLDOWN_MS: '0',
  });
  return { ctx, fake };
}

export async function closeProviderApp(ctx: TestApp | undefined, fake: FakeProvider | undefined) {
  if (ctx) await closeTestApp(ctx);
  if (fake) await fake.close();
}

/** Registers a new account with a genuine alpha access token or beta ID token for `providerUserId`. */
export async function signUpWithProvider(
  app: FastifyInstance,
  fake: FakeProvider,
  provider: 'alpha' | 'beta',
  providerUserId: string,
): Promise<SignedIn> {
  const token =
    provider === 'alpha' ? fake.issueAccessToken(providerUserId) : await fake.issueIdToken(providerUserId);
  return expectOk<SignedIn>(
    await postForm(app, '/v1/auth/register', providerSignUp(provider, providerUserId, token)),
  );
}
