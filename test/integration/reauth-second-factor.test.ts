import { describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.js';
import { backends } from '../helpers/database.js';
import { bearer, type RegisteredUser, registerUser, unique } from '../helpers/factories.js';
import { expectOk, expectValidationError, postForm } from '../helpers/http.js';
import { enableTotp, type TwoFactorUser } from '../helpers/second-factor.js';
import { currentCode } from '../helpers/totp.js';
import { PASSKEY_ENV, PASSKEY_ORIGIN, passkeyFlows, SoftwareAuthenticator } from '../helpers/webauthn.js';

const SECOND_FACTOR_NEEDED = {
  code: [
    'This change needs a second factor: re-authenticate (user/reauth) with the password and an ' +
      'authenticator or recovery code, or with a passkey.',
  ],
};

/**
 * On an account with a second factor, a change that adds or removes a way to sign in needs a
 * re-authentication of two factors: a window opened by the password alone does the other changes only.
 */
describe.each(backends)('%s: re-authentication of two factors for the ways to sign in', (backend) => {
  const ctx = useTestApp(backend, PASSKEY_ENV);
  const post = (path: string, token: string, body: Record<string, string> = {}) =>
    postForm(ctx.app, `/v1${path}`, body, bearer(token));
  const reauth = (user: RegisteredUser, extra: Record<string, string> = {}) =>
    post('/user/reauth', user.token, { current_password: user.password, ...extra });
  const passkeyOptions = (user: RegisteredUser, body: Record<string, string> = {}) =>
    post('/user/passkeys/options', user.token, body);
  const twoFactorUser = async (): Promise<TwoFactorUser> => enableTotp(ctx.app, await registerUser(ctx.app));

  it('a password-only window of a two-factor account adds no passkey and changes no email', async () => {
    const user = await twoFactorUser();
    expectOk(await reauth(user));
    expectValidationError(await passkeyOptions(user), SECOND_FACTOR_NEEDED);
    const email = `moved${unique()}@example.com`;
    expectValidationError(await post('/user/update', user.token, { email }), SECOND_FACTOR_NEEDED);
    // The same password sent with the request is one factor too.
    expectValidationError(
      await passkeyOptions(user, { current_password: user.password }),
      SECOND_FACTOR_NEEDED,
    );
    // The other changes still go through the window.
    const password = `Another-Passphrase-${unique()}`;
    expectOk(await post('/user/update', user.token, { password }));
  });

  it('the password with a code, or with a recovery code, opens a window that adds a passkey', async () => {
    const withCode = await twoFactorUser();
    expectOk(await reauth(withCode, { code: currentCode(withCode.secret) }));
    const authenticator = new SoftwareAuthenticator(PASSKEY_ORIGIN);
    const added = await passkeyFlows(ctx.app).addPasskey(withCode.token, authenticator, {});
    expect(added.id).toEqual(expect.any(String));
    const email = `moved${unique()}@example.com`;
    expectOk(await post('/user/update', withCode.token, { email }));

    const withRecovery = await twoFactorUser();
    expectOk(await reauth(withRecovery, { recovery_code: withRecovery.recoveryCodes[0] as string }));
    expectOk(await passkeyOptions(withRecovery));
  });

  it('a wrong code opens no window', async () => {
    const user = await twoFactorUser();
    const wrong = currentCode(user.secret) === '000000' ? '111111' : '000000';
    expectValidationError(await reauth(user, { code: wrong }), { code: ['The code is invalid.'] });
    expectValidationError(await passkeyOptions(user), {
      current_password: ['The current password field is required.'],
    });
  });

  it('a passkey re-authentication is two factors', async () => {
    const user = await twoFactorUser();
    const flows = passkeyFlows(ctx.app);
    expectOk(await reauth(user, { code: currentCode(user.secret) }));
    const authenticator = new SoftwareAuthenticator(PASSKEY_ORIGIN);
    await flows.addPasskey(user.token, authenticator, {});
    const proof = await flows.reauthProof(user.token, authenticator);
    expectOk(await flows.post('/user/reauth', proof, user.token));
    expectOk(await passkeyOptions(user));
  });

  it('an account without a second factor adds a passkey after the password alone', async () => {
    const user = await registerUser(ctx.app);
    expectOk(await reauth(user));
    expectOk(await passkeyOptions(user));
  });
});
