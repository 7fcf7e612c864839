import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.js';
import { backends } from '../helpers/database.js';
import { bearer, registerUser, registrationForm, unique } from '../helpers/factories.js';
import { expectOk, expectValidationError, postForm } from '../helpers/http.js';
import { expectAuthenticationFailed } from '../helpers/providers.js';
import { WebhookReceiver } from '../helpers/webhook-receiver.js';
import { addEndpoint, pass, resetWebhooks } from '../helpers/webhooks.js';

/**
 * What a receiver of account events sees of what users do through the API: each action's event once, signed
 * with the endpoint's secret, and nothing of an action that failed.
 */
describe.each(backends)('%s: account events at a receiver', (backend) => {
  const ctx = useTestApp(backend, { WEBHOOK_ALLOW_PRIVATE: 'true' });
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    await resetWebhooks(ctx.database.handle.db);
    receiver = await WebhookReceiver.start();
    receiver.secrets = [(await addEndpoint(ctx, receiver.url)).secret];
  });
  afterAll(async () => {
    await receiver?.close();
  });

  /** Every event delivered since the last call, after the passes that deliver what the actions wrote. */
  async function delivered(): Promise<Array<{ type: string; data: Record<string, unknown> }>> {
    await pass(ctx);
    const requests = receiver.requests.splice(0);
    expect(requests.every((request) => request.verifiedBy[0] === true)).toBe(true);
    // Each event once: a webhook-id is never seen twice when every attempt succeeds.
    expect(new Set(requests.map((request) => request.id)).size).toBe(requests.length);
    return requests.map((request) => ({ type: request.body.type, data: request.body.data }));
  }

  it('delivers sign-up, sign-in, profile change, logout and deletion once each, signed', async () => {
    const user = await registerUser(ctx.app);
    const signUp = await delivered();
    // The consents given with the sign-up travel in user.created: a receiver gets the account whole.
    expect(signUp.map((event) => event.type).sort()).toEqual(['session.created', 'user.created']);
    expect(signUp.find((event) => event.type === 'user.created')?.data).toMatchObject({
      id: user.id,
      email: user.email,
      method: 'email',
      consents: expect.arrayContaining([expect.objectContaining({ agreed: true })]),
    });

    const login = expectOk<{ user: { api_token: string } }>(
      await postForm(ctx.app, '/v1/auth/login/email', { email: user.email, password: user.password }),
    );
    expect(await delivered()).toEqual([
      { type: 'session.created', data: expect.objectContaining({ user_id: user.id, method: 'password' }) },
    ]);

    const bio = `bio ${unique()}`;
    expectOk(await postForm(ctx.app, '/v1/user/update', { bio }, bearer(user.token)));
    expect(await delivered()).toEqual([
      { type: 'user.updated', data: { id: user.id, changed: ['bio'], values: { bio } } },
    ]);

    expectOk(await postForm(ctx.app, '/v1/auth/logout', {}, bearer(login.user.api_token)));
    expect(await delivered()).toEqual([
      { type: 'session.revoked', data: expect.objectContaining({ user_id: user.id, reason: 'logout' }) },
    ]);

    expectOk(
      await postForm(ctx.app, '/v1/user/delete', { current_password: user.password }, bearer(user.token)),
    );
    const deletion = await delivered();
    expect(deletion.map((event) => event.type).sort()).toEqual([
      'session.revoked',
      'user.deletion_scheduled',
    ]);
  });

  it('delivers nothing of a sign-up that was refused or a wrong password', async () => {
    const user = await registerUser(ctx.app);
    await delivered();
    expectValidationError(
      await postForm(ctx.app, '/v1/auth/register', registrationForm({ email: user.email })),
      { email: ['The email has already been taken.'] },
    );
    const wrong = await postForm(ctx.app, '/v1/auth/login/email', {
      email: user.email,
      password: 'wrong-pass1',
    });
    expectAuthenticationFailed(wrong);
    expect(await delivered()).toEqual([]);
  });
});
