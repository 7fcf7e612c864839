import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.js';
import { backends } from '../helpers/database.js';

import { fetchOpenApi } from '../helpers/openapi.js';

const PACKAGE_VERSION = JSON.parse(
  readFileSync(new URL('../../package.json', import.meta.url), 'utf8'),
).version;

describe.each(backends)('%s: GET /openapi.json', (backend) => {
  const ctx = useTestApp(backend, { API_VERSIONS: 'v1,dev' });
  const document = () => fetchOpenApi(ctx.app);
  it('is an OpenAPI 3.1 document of this service version, with the configured versions as servers', async () => {
    const doc = await document();
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info.version).toBe(PACKAGE_VERSION);
    expect(doc.servers).toEqual([
      { url: '/{version}', variables: { version: { enum: ['v1', 'dev'], default: 'v1' } } },
    ]);
  });

  it('documents exactly the routes the service answers', async () => {
    const doc = await document();
    // No provider is configured here: every known one's login, link and unlink routes are there all the same.
    expect(Object.keys(doc.paths).sort()).toEqual([
      '/auth/deletion/cancel',
      '/auth/email-code',
      '/auth/email-code/verify',
      '/auth/email/verify',
      '/auth/login/alpha',
      '/auth/login/beta',
      '/auth/login/email',
      '/auth/login/gamma',
      '/auth/login/passkey',
      '/auth/login/passkey/options',
      '/auth/login/second-factor',
      '/auth/logout',
      '/auth/password/forgot',
      '/auth/password/reset',
      '/auth/phone-code',
      '/auth/phone-code/verify',
      '/auth/register',
      '/auth/token',
      '/consents/documents',
      '/guardian/consent',
      '/guardian/identity/start',
      '/guardian/withdraw',
      '/post/create',
      '/post/raw/feed',
      '/post/single/{id}/raw',
      '/post/{id}/delete',
      '/post/{id}/like',
      '/post/{id}/unlike',
      '/promotions/banners',
      '/promotions/inspirers',
      '/test/notification',
      '/user/2fa',
      '/user/2fa/disable',
      '/user/2fa/recovery-codes/regenerate',
      '/user/2fa/totp/enable',
      '/user/2fa/totp/setup',
      '/user/activity',
      '/user/consents',
      '/user/consents/update',
      '/user/delete',
      '/user/device/get',
      '/user/device/update',
      '/user/email/resend',
      '/user/export',
      '/user/export/{id}',
      '/user/get',
      '/user/guardian/request',
      '/user/identity/start',
      '/user/identity/verify',
      '/user/passkeys',
      '/user/passkeys/add',
      '/user/passkeys/options',
      '/user/passkeys/reauth-options',
      '/user/passkeys/{id}/remove',
      '/user/passkeys/{id}/rename',
      '/user/phone',
      '/user/phone/remove',
      '/user/phone/verify',
      '/user/profile-image/update',
      '/user/providers/alpha/link',
      '/user/providers/alpha/unlink',
      '/user/providers/beta/link',
      '/user/providers/beta/unlink',
      '/user/providers/gamma/link',
      '/user/providers/gamma/unlink',
      '/user/reauth',
      '/user/tokens',
      '/user/tokens/{id}/revoke',
      '/user/update',
      '/validate/email',
      '/validate/password',
      '/validate/slug',
      '/validate/username',
    ]);
    // user/export both lists the user's exports (GET) and asks for a new one (POST).
    expect(Object.keys(doc.paths['/user/export'] ?? {}).sort()).toEqual(['get', 'post']);
    for (const [path, operations] of Object.entries(doc.paths)) {
      for (const method of Object.keys(operations)) {
        const res = await ctx.app.inject({
          method: method.toUpperCase() as 'GET' | 'POST',
          url: `/v1${path}`,
        });
        // A path parameter names a resource: `{id}` is no post, so a public post route answers its 404.
        const refused = path.includes('{') && path.startsWith('/post/') ? [405] : [404, 405];
        expect(refused, `${method} ${path}`).not.toContain(res.statusCode);
      }
    }
  });

  it('gives every operation a unique id and the error responses every endpoint can give', async () => {
    const doc = await document();
    const operations = Object.values(doc.paths).flatMap((byMethod) => Object.values(byMethod));
    const ids = operations.map((operation) => operation.operationId);
    expect(new Set(ids).size).toBe(ids.length);
    for (const operation of operations) {
      // A success is a 200, or a 202 where the request only starts the work (user/export).
      const success = operation.responses['202'] ? '202' : '200';
      expect(Object.keys(operation.responses), operation.operationId).toEqual(
        expect.arrayContaining([success, '500', '503']),
      );
    }
    // A 422 is documented where parameters can fail (or the service can refuse), not on parameterless reads.
    expect(Object.keys(doc.paths['/validate/email']?.post?.responses ?? {})).toContain('422');
    expect(Object.keys(doc.paths['/user/providers/gamma/unlink']?.post?.responses ?? {})).toContain('422');
    expect(Object.keys(doc.paths['/user/get']?.get?.responses ?? {})).not.toContain('422');
    expect(Object.keys(doc.paths['/auth/login/email']?.post?.responses ?? {})).toEqual(
      expect.arrayContaining(['401', '429']),
    );
  });

  it("documents an unconfigured provider's login and link with their parameters and the variables to set", async () => {
    const doc = await document();
    for (const path of ['/auth/login/gamma', '/user/providers/gamma/link']) {
      const operation = doc.paths[path]?.post as unknown as {
        description: string;
        requestBody: { content: Record<string, { schema: { properties: Record<string, unknown> } }> };
      };
      expect(operation.description, path).toContain(
        'answers 503 `provider_not_configured` (set PROVIDER_GAMMA_USERINFO_URL, or PROVIDER_GAMMA_JWKS_URL, ' +
          'PROVIDER_GAMMA_ISSUER, PROVIDER_GAMMA_AUDIENCE)',
      );
      const fields = Object.keys(operation.requestBody.content['application/json']?.schema.properties ?? {});
      expect(fields, path).toEqual(expect.arrayContaining(['gamma_user_id', 'gamma_access_token']));
    }
  });

  it('marks exactly the protected routes as needing a token', async () => {
    const doc = await document();
    const security = [{ bearer: [] }, { apiTokenQuery: [] }];
    expect(doc.paths['/user/get']?.get?.security).toEqual(security);
    expect(doc.paths['/auth/logout']?.post?.security).toEqual(security);
    expect(Object.keys(doc.paths['/user/get']?.get?.responses ?? {})).toContain('401');
    // A public route says so outright (`security: []`): a linter's default rules flag one that leaves it unsaid.
    for (const path of ['/auth/register', '/auth/login/email', '/validate/email']) {
      expect(doc.paths[path]?.post?.security, path).toEqual([]);
    }
    for (const [path, operations] of Object.entries(doc.paths)) {
      for (const [method, operation] of Object.entries(operations)) {
        expect(operation.security, `${method} ${path}`).toBeDefined();
      }
    }
  });

  it('derives the register body from its rule list: required fields, patterns, multipart for the file', async () => {
    const body = (await document()).paths['/auth/register']?.post?.requestBody;
    expect(body?.required).toBe(true);
    // Form and JSON register too (without a picture): every body type the route accepts is listed.
    expect(Object.keys(body?.content ?? {})).toEqual([
      'multipart/form-data',
      'application/x-www-form-urlencoded',
      'application/json',
    ]);
    const form = body?.content['application/x-www-form-urlencoded']?.schema as {
      properties: Record<string, unknown>;
    };
    expect(form.properties.profile_picture).toBeUndefined();
    expect(form.properties.email).toBeDefined();
    const schema = body?.content['multipart/form-data']?.schema as {
      required: string[];
      properties: Record<string, Record<string, unknown>>;
    };
    expect(schema.required).toEqual(['type', 'email', 'username', 'gender', 'user_agreement']);
    expect(schema.properties.type).toMatchObject({ type: 'string', enum: ['email', 'email_code'] });
    expect(schema.properties.email).toMatchObject({ type: 'string', format: 'email', maxLength: 255 });
    expect(schema.properties.slug).toMatchObject({ minLength: 4, maxLength: 256 });
    expect(schema.properties.gender).toMatchObject({ type: 'integer', enum: [0, 1] });
    expect(schema.properties.password).toMatchObject({ minLength: 8, maxLength: 1024 });
    expect(schema.properties.password?.description).toContain('Required when `type` is email.');
    expect(schema.properties.profile_picture).toMatchObject({ type: 'string', format: 'binary' });
    expect(new RegExp(schema.properties.username?.pattern as string).test('김민준')).toBe(true);
    expect(Object.keys(schema.properties)).toEqual(
      expect.arrayContaining(['alpha_user_id', 'alpha_access_token', 'beta_user_id', 'beta_access_token']),
    );
  });
});
