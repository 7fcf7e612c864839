import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeProvider, startFakeProvider } from '../../src/dev/fake-provider.js';
import { closeTestApp, createTestApp, type TestApp } from '../helpers/app.js';
import { backends } from '../helpers/database.js';
import { registerUser, unique } from '../helpers/factories.js';
import { expectOk, expectValidationError, postForm } from '../helpers/http.js';
import { providerSignUp } from '../helpers/providers.js';
import { PASSKEY_ENV, PASSKEY_ORIGIN, passkeyFlows, SoftwareAuthenticator } from '../helpers/webauthn.js';

const PASSKEY_INCORRECT = {
  passkey_response: ['The passkey response does not prove a passkey of this account; ask for new options.'],
};

/** A passkey assertion as the proof of identity before sensitive changes, and the last way to sign in. */
describe.each(backends)('%s: passkeys and re-authentication', (backend) => {
  let fake: FakeProvider;
  let ctx: TestApp;

  beforeAll(async () => {
    fake = await startFakeProvider({ clientId: 'accounts-test' });
    ctx = await createTestApp(backend, { ...PASSKEY_ENV, ...fake.env('alpha', 'userinfo') });
  });
  afterAll(async () => {
    if (ctx) await closeTestApp(ctx);
    if (fake) await fake.close();
  });
  const flows = () => passkeyFlows(ctx.app);

  async function userWithPasskey() {
    const user = await registerUser(ctx.app);
    const authenticator = new SoftwareAuthenticator(PASSKEY_ORIGIN);
    await flows().addPasskey(user.token, authenticator, { current_password: user.password });
    return { user, authenticator };
  }

  it('changes the password and the email with a passkey instead of the current password', async () => {
    const { user, authenticator } = await userWithPasskey();
    const password = `New-Passphrase-${unique()}`;
    expectOk(
      await flows().post(
        '/user/update',
        { password, ...(await flows().reauthProof(user.token, authenticator)) },
        user.token,
      ),
    );
    expectOk(await postForm(ctx.app, '/v1/auth/login/email', { email: user.email, password }));
    const email = `moved${unique()}@example.com`;
    const updated = expectOk<{ user: { email: string } }>(
      await flows().post(
        '/user/update',
        { email, ...(await flows().reauthProof(user.token, authenticator)) },
        user.token,
      ),
    );
    expect(updated.user.email).toBe(email);
  });

  it('refuses another user’s passkey, a proof of another session, a used proof and a wrong signature', async () => {
    const owner = await userWithPasskey();
    const thief = await userWithPasskey();
    const password = `Thief-Passphrase-${unique()}`;
    // The thief's own passkey answering a challenge made for the owner's session.
    const ownersChallenge = await flows().reauthProof(owner.user.token, owner.authenticator);
    const { options } = expectOk<{ options: { challenge: string; rpId: string } }>(
      await flows().post('/user/passkeys/reauth-options', {}, owner.user.token),
    );
    expectValidationError(
      await flows().post(
        '/user/update',
        { password, ...ownersChallenge, passkey_response: thief.authenticator.get(options) },
        owner.user.token,
      ),
      PASSKEY_INCORRECT,
    );
    // The owner's genuine proof, presented by the thief's session: bound to the owner, refused.
    const genuine = await flows().reauthProof(owner.user.token, owner.authenticator);
    expectValidationError(
      await flows().post('/user/update', { password, ...genuine }, thief.user.token),
      PASSKEY_INCORRECT,
    );
    // Used up by that attempt: the owner cannot replay it either.
    expectValidationError(
      await flows().post('/user/update', { password, ...genuine }, owner.user.token),
      PASSKEY_INCORRECT,
    );
    const { passkey_challenge_id } = await flows().reauthProof(owner.user.token, owner.authenticator);
    const reauthOptions = expectOk<{ options: { challenge: string; rpId: string } }>(
      await flows().post('/user/passkeys/reauth-options', {}, owner.user.token),
    );
    expectValidationError(
      await flows().post(
        '/user/update',
        {
          password,
          passkey_challenge_id: passkey_challenge_id,
          passkey_response: owner.authenticator.get(reauthOptions.options, undefined, { badSignature: true }),
        },
        owner.user.token,
      ),
      PASSKEY_INCORRECT,
    );
  });

  it("opens the session's re-authentication window with a passkey: then a passkey goes without a proof", async () => {
    const { user, authenticator } = await userWithPasskey();
    const second = await flows().addPasskey(user.token, authenticator, { current_password: user.password });
    expectOk(
      await flows().post('/user/reauth', await flows().reauthProof(user.token, authenticator), user.token),
    );
    expectOk(await flows().post(`/user/passkeys/${second.id}/remove`, {}, user.token));
    expectOk(await flows().post('/user/passkeys/options', {}, user.token));
  });

  it('lets a password-less account unlink its provider once it has a passkey; the last passkey then stays', async () => {
    const alphaId = `a-${unique()}`;
    const fields = providerSignUp('alpha', alphaId, fake.issueAccessToken(alphaId));
    const token = expectOk<{ user: { api_token: string } }>(
      await postForm(ctx.app, '/v1/auth/register', fields),
    ).user.api_token;
    const alphaProof = () => ({ alpha_user_id: alphaId, alpha_access_token: fake.issueAccessToken(alphaId) });
    // Without a passkey, the provider is the last way in.
    expectValidationError(await flows().post('/user/providers/alpha/unlink', alphaProof(), token), {
      provider: [
        'The alpha account is the only way to sign in; set a password or link another provider first.',
      ],
    });
    const authenticator = new SoftwareAuthenticator(PASSKEY_ORIGIN);
    const passkey = await flows().addPasskey(token, authenticator, alphaProof());
    expectOk(await flows().post('/user/providers/alpha/unlink', alphaProof(), token));
    // Now the passkey is the only proof the account has, and the only way in.
    expectValidationError(await flows().post(`/user/passkeys/${passkey.id}/remove`, {}, token), {
      passkey_challenge_id: ['The passkey challenge id field is required.'],
      passkey_response: ['The passkey response field is required.'],
    });
    expectValidationError(
      await flows().post(
        `/user/passkeys/${passkey.id}/remove`,
        await flows().reauthProof(token, authenticator),
        token,
      ),
      {
        passkey: [
          'This passkey is the only way to sign in; set a password, link a provider or add another passkey first.',
        ],
      },
    );
    // A second passkey makes the first removable.
    const second = new SoftwareAuthenticator(PASSKEY_ORIGIN);
    await flows().addPasskey(token, second, await flows().reauthProof(token, authenticator));
    expectOk(
      await flows().post(
        `/user/passkeys/${passkey.id}/remove`,
        await flows().reauthProof(token, second),
        token,
      ),
    );
  });

  it('removes only one of two passkeys when both removals race on a passkey-only account', async () => {
    const alphaId = `a-${unique()}`;
    const fields = providerSignUp('alpha', alphaId, fake.issueAccessToken(alphaId));
    const token = expectOk<{ user: { api_token: string } }>(
      await postForm(ctx.app, '/v1/auth/register', fields),
    ).user.api_token;
    const alphaProof = () => ({ alpha_user_id: alphaId, alpha_access_token: fake.issueAccessToken(alphaId) });
    const authenticator = new SoftwareAuthenticator(PASSKEY_ORIGIN);
    const first = await flows().addPasskey(token, authenticator, alphaProof());
    const second = await flows().addPasskey(token, authenticator, alphaProof());
    expectOk(await flows().post('/user/providers/alpha/unlink', alphaProof(), token));
    const [one, other] = [authenticator.credentials[0], authenticator.credentials[1]];
    const proofs = [
      await flows().reauthProof(token, authenticator, one),
      await flows().reauthProof(token, authenticator, other),
    ];
    const answers = await Promise.all([
      flows().post(`/user/passkeys/${first.id}/remove`, proofs[0], token),
      flows().post(`/user/passkeys/${second.id}/remove`, proofs[1], token),
    ]);
    expect(answers.map((res) => res.statusCode).sort()).toEqual([200, 422]);
  });
});
