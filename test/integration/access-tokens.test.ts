import { createLocalJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import { describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.js';
import { backends } from '../helpers/database.js';
import { bearer, registerUser } from '../helpers/factories.js';
import { expectError, expectOk, expectValidationError, postForm, UNAUTHENTICATED } from '../helpers/http.js';
import { buildTestServices } from '../helpers/services.js';

interface Issued {
  access_token: string;
  token_type: string;
  expires_in: number;
}

const AUDIENCE = 'https://feed.example.com';
const ISSUER = 'https://accounts.example.com';

describe.each(backends)('%s: access tokens, the JWKS and introspection', (backend) => {
  const ctx = useTestApp(backend, { ACCESS_TOKEN_AUDIENCE: AUDIENCE, PUBLIC_URL: ISSUER });

  const issue = (token: string) => postForm(ctx.app, '/v1/auth/token', {}, bearer(token));
  const jwks = async () => {
    const res = await ctx.app.inject({ method: 'GET', url: '/.well-known/jwks.json' });
    expect(res.statusCode).toBe(200);
    return res;
  };
  const serviceCredential = async (name: string) =>
    buildTestServices(ctx).serviceCredentials.add(`${name}-${Math.random().toString(36).slice(2, 8)}`);
  const basic = (id: string, secret: string) => ({
    authorization: `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`,
  });
  const introspect = (headers: Record<string, string>, body: Record<string, string>) =>
    postForm(ctx.app, '/oauth/introspect', body, headers);

  it('signs a token another service verifies against the JWKS, with the claims listed and no more', async () => {
    const me = await registerUser(ctx.app);
    const issued = expectOk<Issued>(await issue(me.token));
    expect(issued).toEqual({ access_token: expect.any(String), token_type: 'Bearer', expires_in: 300 });

    const res = await jwks();
    expect(res.headers['cache-control']).toBe('public, max-age=300');
    const set = res.json() as { keys: Record<string, string>[] };
    expect(set.keys).toEqual([
      {
        kty: 'OKP',
        crv: 'Ed25519',
        x: expect.any(String),
        kid: expect.any(String),
        alg: 'EdDSA',
        use: 'sig',
      },
    ]);
    const { payload, protectedHeader } = await jwtVerify(issued.access_token, createLocalJWKSet(set), {
      issuer: ISSUER,
      audience: AUDIENCE,
    });
    expect(protectedHeader).toEqual({ alg: 'EdDSA', kid: set.keys[0]?.kid, typ: 'at+jwt' });
    const session = expectOk<{ tokens: { id: string; created_at: string }[] }>(
      await ctx.app.inject({ method: 'GET', url: '/v1/user/tokens', headers: bearer(me.token) }),
    ).tokens[0];
    expect(payload).toEqual({
      iss: ISSUER,
      sub: me.id,
      sid: session?.id,
      aud: AUDIENCE,
      iat: expect.any(Number),
      exp: (payload.iat ?? 0) + 300,
      jti: expect.any(String),
      auth_time: Math.floor(Date.parse(session?.created_at ?? '') / 1000),
      amr: ['pwd'],
      email_verified: false,
      identity_verified: false,
      adult: null,
    });
  });

  it('is refused without a session, for a disabled account, and is not a credential here', async () => {
    expectError(await issue('not-a-token'), 401, ...UNAUTHENTICATED);
    const me = await registerUser(ctx.app);
    const { access_token } = expectOk<Issued>(await issue(me.token));
    // An access token is for the other services: this one's routes answer it as any unknown token.
    expectError(await issue(access_token), 401, ...UNAUTHENTICATED);
    expectError(
      await ctx.app.inject({ method: 'GET', url: '/v1/user/get', headers: bearer(access_token) }),
      401,
      ...UNAUTHENTICATED,
    );
    const db = ctx.database.handle.db;
    await db.updateTable('users').set({ disabled_at: new Date() }).where('id', '=', me.id).execute();
    expectError(await issue(me.token), 401, ...UNAUTHENTICATED);
    await db
      .updateTable('users')
      .set({ disabled_at: null, deletion_scheduled_at: new Date(), deletion_due_at: new Date() })
      .where('id', '=', me.id)
      .execute();
    expectError(await issue(me.token), 401, ...UNAUTHENTICATED);
  });

  it('introspects API tokens and access tokens for a service credential, inactive once revoked', async () => {
    const feed = await serviceCredential('feed');
    const auth = basic(feed.client_id, feed.client_secret);
    const me = await registerUser(ctx.app);
    const { access_token } = expectOk<Issued>(await issue(me.token));

    const forApiToken = await introspect(auth, { token: me.token });
    expect(forApiToken.statusCode).toBe(200);
    expect(forApiToken.headers['cache-control']).toBe('no-store');
    const sessionClaims = {
      active: true,
      iss: ISSUER,
      sub: me.id,
      sid: expect.any(String),
      iat: expect.any(Number),
      auth_time: expect.any(Number),
      amr: ['pwd'],
      email_verified: false,
      identity_verified: false,
      adult: null,
    };
    expect(forApiToken.json()).toEqual({ ...sessionClaims, token_type: 'api_token' });
    const forAccessToken = (await introspect(auth, { token: access_token })).json();
    expect(forAccessToken).toEqual({
      ...sessionClaims,
      token_type: 'access_token',
      aud: AUDIENCE,
      exp: expect.any(Number),
      jti: expect.any(String),
      sid: forApiToken.json().sid,
    });

    expect((await introspect(auth, { token: 'unknown' })).json()).toEqual({ active: false });
    const tampered = `${access_token.slice(0, -4)}AAAA`;
    expect((await introspect(auth, { token: tampered })).json()).toEqual({ active: false });
    // Signing out ends both: the access token's session is gone.
    expectOk(await postForm(ctx.app, '/v1/auth/logout', {}, bearer(me.token)));
    expect((await introspect(auth, { token: me.token })).json()).toEqual({ active: false });
    expect((await introspect(auth, { token: access_token })).json()).toEqual({ active: false });
  });

  it('refuses introspection without a valid service credential, and asks for the token', async () => {
    const feed = await serviceCredential('chat');
    const refusals = [
      {},
      { authorization: 'Bearer whatever' },
      basic(feed.client_id, 'wrong'),
      basic('svc_unknown', feed.client_secret),
    ];
    for (const headers of refusals) {
      const res = await introspect(headers, { token: 'x' });
      expectError(res, 401, 'UnauthorizedHttpException', 'Invalid client.', { status: 'invalid_client' });
      expect(res.headers['www-authenticate']).toBe('Basic realm="accounts", charset="UTF-8"');
    }
    expectValidationError(await introspect(basic(feed.client_id, feed.client_secret), {}), {
      token: ['The token field is required.'],
    });
    // A removed credential stops at once; a rotated one's old secret too.
    const services = buildTestServices(ctx);
    const rotated = await services.serviceCredentials.rotate(feed.name);
    expect((await introspect(basic(feed.client_id, feed.client_secret), { token: 'x' })).statusCode).toBe(
      401,
    );
    const fresh = basic(feed.client_id, rotated?.client_secret ?? '');
    expect((await introspect(fresh, { token: 'x' })).json()).toEqual({ active: false });
    await services.serviceCredentials.remove(feed.client_id);
    expect((await introspect(fresh, { token: 'x' })).statusCode).toBe(401);
  });

  it('signs with the same key until a rotation is due, and publishes the next one first', async () => {
    const me = await registerUser(ctx.app);
    const before = decodeProtectedHeader(expectOk<Issued>(await issue(me.token)).access_token).kid;
    const next = await buildTestServices(ctx).signingKeys.rotate();
    expect(next.state).toBe('pending');
    // Another instance (as this one once its brief cache of the keys runs out) publishes both.
    const published = await buildTestServices(ctx).signingKeys.published();
    expect(published.map((key) => key.kid)).toEqual([before, next.kid]);
    expect(decodeProtectedHeader(expectOk<Issued>(await issue(me.token)).access_token).kid).toBe(before);
  });
});

describe.each(backends)('%s: access tokens without SECRETS_KEY', (backend) => {
  const ctx = useTestApp(backend, { SECRETS_KEY: '' });

  it('answers 503 access_tokens_not_configured, and publishes no key', async () => {
    const me = await registerUser(ctx.app);
    expectError(
      await postForm(ctx.app, '/v1/auth/token', {}, bearer(me.token)),
      503,
      'ServiceUnavailableHttpException',
      'Access tokens not configured.',
      { status: 'access_tokens_not_configured', variables: ['SECRETS_KEY'] },
    );
    const res = await ctx.app.inject({ method: 'GET', url: '/.well-known/jwks.json' });
    expect(res.json()).toEqual({ keys: [] });
  });
});
