import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll } from 'vitest';
import { type FakeProvider, startFakeProvider } from '../../src/dev/fake-provider.js';
import { closeTestApp, createTestApp, type TestApp } from './app.js';
import type { Backend } from './database.js';
import { expectOk, postForm } from './http.js';
import { providerSignUp } from './providers.js';

export type SignedIn = {
  user: Record<string, unknown> & { id: string; api_token: string; providers: string[] };
};

/** The app of an identity-provider suite, and what its tests call the fake provider for. */
export interface ProviderApp {
  /** Filled in before the block's first test, like useTestApp's. */
  ctx: TestApp;
  readonly fake: FakeProvider;
  alphaToken(providerUserId: string): string;
  betaToken(providerUserId: string): Promise<string>;
  signUp(provider: 'alpha' | 'beta', providerUserId: string): Promise<SignedIn>;
}

/**
 * An app with all three identity providers on one fake provider over real HTTP, for the block it is called
 * in. alpha: userinfo + tokeninfo with our client id; beta: OIDC ID tokens; gamma: userinfo without tokeninfo
 * (no register type).
 */
export function useProviderApp(backend: Backend): ProviderApp {
  const ctx = {} as TestApp;
  let started: FakeProvider | undefined;
  beforeAll(async () => {
    started = await startFakeProvider({ clientId: 'accounts-test' });
    const gamma = started.env('gamma', 'userinfo');
    delete gamma.PROVIDER_GAMMA_TOKENINFO_URL;
    delete gamma.PROVIDER_GAMMA_CLIENT_ID;
    Object.assign(
      ctx,
      await createTestApp(backend, {
        ...started.env('alpha', 'userinfo'),
        ...started.env('beta', 'id-token'),
        ...gamma,
        // Fetch the JWKS again as soon as an unknown key id shows up (the rotation test).
        PROVIDER_JWKS_COOLDOWN_MS: '0',
      }),
    );
  });
  afterAll(async () => {
    if (ctx.app) await closeTestApp(ctx);
    if (started) await started.close();
  });
  const fake = () => {
    if (!started) throw new Error('the fake provider starts before the first test');
    return started;
  };
  return {
    ctx,
    get fake() {
      return fake();
    },
    alphaToken: (id) => fake().issueAccessToken(id),
    betaToken: (id) => fake().issueIdToken(id),
    signUp: (provider, id) => signUpWithProvider(ctx.app, fake(), provider, id),
  };
}

/** Registers a new account with a genuine alpha access token or beta ID token for `providerUserId`. */
async function signUpWithProvider(
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
