import { describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.js';
import { backends } from '../helpers/database.js';
import { bearer } from '../helpers/factories.js';
import { askGuardian, registerChild } from '../helpers/guardian.js';
import { expectError, expectOk, postForm } from '../helpers/http.js';
import { concretePath } from '../helpers/routes.js';

type Operation = { security?: Array<Record<string, unknown>>; 'x-guardian-consent-required'?: boolean };
type Document = { paths: Record<string, Record<string, Operation>> };

/**
 * The writes a child awaiting a guardian's consent may still make, besides the reads (docs/identity.md):
 * signing out, asking a guardian, re-authenticating to delete the account or export its data, deleting it,
 * revoking a session. Every other signed-in POST must carry the restriction.
 */
const OPEN_TO_A_PENDING_CHILD = [
  'POST /auth/logout',
  'POST /user/delete',
  'POST /user/export',
  'POST /user/guardian/request',
  'POST /user/passkeys/reauth-options',
  'POST /user/reauth',
  'POST /user/tokens/{id}/revoke',
];

/**
 * Every route the app documents as refused to a child whose guardian has not consented (from its own
 * /openapi.json, so a route added later is covered the moment it exists) answers that child 403
 * guardian_consent_required, before it looks at a parameter; once a guardian consents, none does.
 */
describe.each(backends)('%s: what a child awaiting a guardian may not do', (backend) => {
  const ctx = useTestApp(backend);
  const operations = async () => {
    const document = (await ctx.app.inject({ url: '/openapi.json' })).json() as Document;
    return Object.entries(document.paths).flatMap(([path, methods]) =>
      Object.entries(methods).map(([method, operation]) => ({
        key: `${method.toUpperCase()} ${path}`,
        path,
        operation,
      })),
    );
  };

  it('refuses every restricted route with 403 guardian_consent_required, and only those', async () => {
    const all = await operations();
    const restricted = all.filter(({ operation }) => operation['x-guardian-consent-required'] === true);
    expect(restricted.map(({ key }) => key)).toEqual(
      expect.arrayContaining([
        'POST /post/create',
        'POST /post/{id}/like',
        'POST /user/update',
        'POST /user/device/update',
      ]),
    );
    const signedInPosts = all.filter(
      ({ key, operation }) =>
        key.startsWith('POST ') && (operation.security ?? []).some((s) => 'bearer' in s),
    );
    const open = signedInPosts.filter(({ operation }) => operation['x-guardian-consent-required'] !== true);
    // POST forms of reads (the feed, a post, promotions) are not writes.
    expect(
      open
        .map(({ key }) => key)
        .filter((key) => !/raw|promotions/.test(key))
        .sort(),
    ).toEqual(OPEN_TO_A_PENDING_CHILD);

    const child = await registerChild(ctx.app);
    for (const { key, path } of restricted) {
      const res = await postForm(ctx.app, concretePath('v1', path), {}, bearer(child.token));
      expect(res.statusCode, key).toBe(403);
      expectError(res, 403, 'AccessDeniedHttpException', "A legal guardian's consent is required.", {
        status: 'guardian_consent_required',
      });
    }
    // Reading is open, and so is asking a guardian.
    expectOk(await ctx.app.inject({ url: '/v1/user/get', headers: bearer(child.token) }));
    const { token } = await askGuardian(ctx.app, ctx.database.handle, child);
    expectOk(await postForm(ctx.app, '/v1/guardian/consent', { token, agree: 'true' }));
    for (const { key, path } of restricted) {
      const res = await postForm(ctx.app, concretePath('v1', path), {}, bearer(child.token));
      expect(res.json().data?.status, key).not.toBe('guardian_consent_required');
    }
  });
});
