import type { LightMyRequestResponse } from 'fastify';
import { describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.js';
import { backends } from '../helpers/database.js';
import { bearer, registerUser } from '../helpers/factories.js';
import { askGuardian, registerChild } from '../helpers/guardian.js';
import { expectError, expectOk, expectValidationError, postForm } from '../helpers/http.js';
import { createdPost, type FeedPage, type Post } from '../helpers/posts.js';
import { concretePath } from '../helpers/routes.js';

type Operation = { security?: Array<Record<string, unknown>>; 'x-guardian-consent-required'?: boolean };
type Document = { paths: Record<string, Record<string, Operation>> };

/**
 * The POST forms of reads (the apps send most calls as forms): they write nothing, so a child awaiting a
 * guardian's consent may still make them. Written out here rather than read from the app, so that a read
 * losing its exemption in the code fails this test.
 */
const READS_OPEN_TO_A_PENDING_CHILD = [
  'POST /post/raw/feed',
  'POST /post/single/{id}/raw',
  'POST /promotions/banners',
  'POST /promotions/inspirers',
];

/**
 * The writes a child awaiting a guardian's consent may still make (docs/identity.md): signing out, asking a
 * guardian, re-authenticating to delete the account or export its data, deleting it, revoking a session.
 */
const WRITES_OPEN_TO_A_PENDING_CHILD = [
  'POST /auth/logout',
  'POST /user/delete',
  'POST /user/export',
  'POST /user/guardian/request',
  'POST /user/passkeys/reauth-options',
  'POST /user/reauth',
  'POST /user/tokens/{id}/revoke',
];

const OPEN_TO_A_PENDING_CHILD = [...READS_OPEN_TO_A_PENDING_CHILD, ...WRITES_OPEN_TO_A_PENDING_CHILD];

function expectGuardianConsentRequired(res: LightMyRequestResponse): void {
  expectError(res, 403, 'AccessDeniedHttpException', "A legal guardian's consent is required.", {
    status: 'guardian_consent_required',
  });
}

/**
 * A child whose guardian has not consented may read and may make the writes listed above; every other
 * signed-in POST the app documents (from its own /openapi.json, so a route added later is covered the moment
 * it exists) answers that child 403 guardian_consent_required, before it looks at a parameter. Once a
 * guardian consents, none does.
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
  const asChild = (path: string, token: string, body: Record<string, string> = {}) =>
    postForm(ctx.app, `/v1${path}`, body, bearer(token));

  it('lets a pending child read: each read answers it as it answers anyone', async () => {
    const author = await registerUser(ctx.app);
    const post = await createdPost(ctx.app, author.token, 'read me');
    const child = await registerChild(ctx.app);

    const feed = expectOk<FeedPage>(await asChild('/post/raw/feed', child.token, { order: 'new' }));
    expect(feed.posts.map(({ id, text }) => ({ id, text }))).toContainEqual({ id: post.id, text: 'read me' });
    const single = expectOk<{ post: Post }>(await asChild(`/post/single/${post.id}/raw`, child.token));
    expect(single.post).toMatchObject({ id: post.id, text: 'read me', author: { id: author.id } });
    expect(expectOk(await asChild('/promotions/banners', child.token))).toEqual({ banners: [] });
    expect(expectOk(await asChild('/promotions/inspirers', child.token))).toEqual({ inspirers: [] });

    const me = expectOk<{ user: Record<string, unknown> }>(
      await ctx.app.inject({ url: '/v1/user/get', headers: bearer(child.token) }),
    );
    expect(me.user).toMatchObject({
      guardian_consent: 'pending',
      restrictions: ['guardian_consent_required'],
    });
  });

  it('lets a pending child make the open writes: each reaches its own rules', async () => {
    const child = await registerChild(ctx.app);
    const noPassword = { current_password: ['The current password field is required.'] };
    expectValidationError(await asChild('/user/delete', child.token), noPassword);
    expectValidationError(await asChild('/user/export', child.token), noPassword);
    expectValidationError(await asChild('/user/reauth', child.token), noPassword);
    expectValidationError(await asChild('/user/guardian/request', child.token), {
      guardian_email: ['The guardian email field is required.'],
    });
    const options = expectOk(await asChild('/user/passkeys/reauth-options', child.token));
    // A child with no passkey is offered none to re-authenticate with.
    expect(options).toEqual({
      options: expect.objectContaining({ allowCredentials: [] }),
      challenge_id: expect.any(String),
    });
    const nobodysToken = '00000000-0000-4000-8000-000000000000';
    expectError(
      await asChild(`/user/tokens/${nobodysToken}/revoke`, child.token),
      404,
      'NotFoundHttpException',
      'Not Found',
    );
    expect(expectOk(await asChild('/auth/logout', child.token))).toEqual({ status: 'logged_out' });
  });

  it('refuses every other signed-in POST with 403 guardian_consent_required, until a guardian consents', async () => {
    const all = await operations();
    const signedInPosts = all.filter(
      ({ key, operation }) =>
        key.startsWith('POST ') && (operation.security ?? []).some((s) => 'bearer' in s),
    );
    // Every listed route exists, so a renamed one cannot drop out of the lists unnoticed.
    const documented = all.map(({ key }) => key);
    for (const key of OPEN_TO_A_PENDING_CHILD) expect(documented, key).toContain(key);
    const refused = signedInPosts.filter(({ key }) => !OPEN_TO_A_PENDING_CHILD.includes(key));
    expect(refused.map(({ key }) => key)).toEqual(
      expect.arrayContaining([
        'POST /post/create',
        'POST /post/{id}/like',
        'POST /user/update',
        'POST /user/device/update',
      ]),
    );
    // The document says so too: exactly the refused routes are marked.
    expect(
      all.filter(({ operation }) => operation['x-guardian-consent-required'] === true).map(({ key }) => key),
    ).toEqual(refused.map(({ key }) => key));

    const child = await registerChild(ctx.app);
    for (const { key, path } of refused) {
      const res = await postForm(ctx.app, concretePath('v1', path), {}, bearer(child.token));
      expect(res.statusCode, key).toBe(403);
      expectGuardianConsentRequired(res);
    }
    const { token } = await askGuardian(ctx.app, ctx.database.handle, child);
    expectOk(await postForm(ctx.app, '/v1/guardian/consent', { token, agree: 'true' }));
    for (const { key, path } of refused) {
      const res = await postForm(ctx.app, concretePath('v1', path), {}, bearer(child.token));
      expect(res.json().data?.status, key).not.toBe('guardian_consent_required');
    }
  });
});
