import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.js';
import { backends } from '../helpers/database.js';
import { bearer, registerUser } from '../helpers/factories.js';
import { expectError, expectOk, expectValidationError } from '../helpers/http.js';
import { PASSKEY_ENV, PASSKEY_ORIGIN, passkeyFlows, SoftwareAuthenticator } from '../helpers/webauthn.js';

const MAC_CHROME =
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36';
const INVALID_RESPONSE = {
  response: ['The response could not be verified; ask for new options and try again.'],
};
const NOT_FOUND = [404, 'NotFoundHttpException', 'Not Found'] as const;

type Passkey = { id: string; name: string; created_at: string; last_used_at: string | null };

/** Adding, listing, renaming and removing passkeys, with a software authenticator. */
describe.each(backends)('%s: passkeys of the signed-in user', (backend) => {
  const ctx = useTestApp(backend, PASSKEY_ENV);
  const flows = () => passkeyFlows(ctx.app);
  const list = async (token: string) =>
    expectOk<{ passkeys: Passkey[] }>(
      await ctx.app.inject({ method: 'GET', url: '/v1/user/passkeys', headers: bearer(token) }),
    ).passkeys;

  it('adds a passkey after re-authentication, named after the user agent, and lists it', async () => {
    const user = await registerUser(ctx.app);
    const authenticator = new SoftwareAuthenticator(PASSKEY_ORIGIN);
    expect(await list(user.token)).toEqual([]);
    const optionsRes = await flows().post(
      '/user/passkeys/options',
      { current_password: user.password },
      user.token,
    );
    const { options } = expectOk<{
      options: Record<string, unknown> & { challenge: string; rp: { id: string }; user: { id: string } };
    }>(optionsRes);
    expect(options.rp).toEqual({ name: 'accounts', id: 'accounts.example.com' });
    expect(options.authenticatorSelection).toMatchObject({
      residentKey: 'required',
      userVerification: 'preferred',
    });
    expect(options.attestation).toBe('none');
    // The user handle is random, never the email or the account id.
    const handle = (options.user as { id: string; name: string }).id;
    expect(Buffer.from(handle, 'base64url')).toHaveLength(32);
    expect(handle).not.toContain(Buffer.from(user.id).toString('base64url'));
    const response = authenticator.create(options);
    const added = expectOk<{ passkey: Passkey }>(
      await ctx.app.inject({
        method: 'POST',
        url: '/v1/user/passkeys/add',
        headers: { ...bearer(user.token), 'content-type': 'application/json', 'user-agent': MAC_CHROME },
        payload: JSON.stringify({ response }),
      }),
    ).passkey;
    expect(added).toMatchObject({ name: 'Chrome on macOS', last_used_at: null });
    expect(await list(user.token)).toEqual([added]);
    // The same handle for every later passkey of the user; their existing ones excluded.
    const again = expectOk<{ options: { user: { id: string }; excludeCredentials: { id: string }[] } }>(
      await flows().post('/user/passkeys/options', { current_password: user.password }, user.token),
    ).options;
    expect(again.user.id).toBe(handle);
    expect(again.excludeCredentials.map((credential) => credential.id)).toEqual([response.id]);
  });

  it('refuses options without the proof, and with a wrong one', async () => {
    const user = await registerUser(ctx.app);
    expectValidationError(await flows().post('/user/passkeys/options', {}, user.token), {
      current_password: ['The current password field is required.'],
    });
    expectValidationError(
      await flows().post('/user/passkeys/options', { current_password: 'not-the-password' }, user.token),
      { current_password: ['The current password is incorrect.'] },
    );
  });

  it('takes a challenge once, only from the user it was made for, and only while it lives', async () => {
    const owner = await registerUser(ctx.app);
    const other = await registerUser(ctx.app);
    const authenticator = new SoftwareAuthenticator(PASSKEY_ORIGIN);
    const optionsOf = async (user: typeof owner) =>
      expectOk<{ options: { challenge: string; rp: { id: string }; user: { id: string } } }>(
        await flows().post('/user/passkeys/options', { current_password: user.password }, user.token),
      ).options;

    // Another user's session cannot finish what the owner started.
    const ownersOptions = await optionsOf(owner);
    const response = authenticator.create(ownersOptions);
    expectValidationError(
      await flows().post('/user/passkeys/add', { response }, other.token),
      INVALID_RESPONSE,
    );
    expectOk(await flows().post('/user/passkeys/add', { response }, owner.token));
    // Used up: the same answer again is refused.
    expectValidationError(
      await flows().post('/user/passkeys/add', { response }, owner.token),
      INVALID_RESPONSE,
    );

    // Expired: moved five minutes back in the database.
    const late = authenticator.create(await optionsOf(owner));
    await sql`UPDATE webauthn_challenges SET expires_at = now() - interval '1 second'`.execute(
      ctx.database.handle.db,
    );
    expectValidationError(
      await flows().post('/user/passkeys/add', { response: late }, owner.token),
      INVALID_RESPONSE,
    );
    expect(await list(owner.token)).toHaveLength(1);
  });

  it('refuses a credential made for another origin or RP ID, or without user verification', async () => {
    const user = await registerUser(ctx.app);
    const authenticator = new SoftwareAuthenticator(PASSKEY_ORIGIN);
    for (const tampering of [
      { origin: 'https://evil.example.net' },
      { rpId: 'evil.example.net' },
      { noUserVerification: true },
    ]) {
      const { options } = expectOk<{
        options: { challenge: string; rp: { id: string }; user: { id: string } };
      }>(await flows().post('/user/passkeys/options', { current_password: user.password }, user.token));
      const response = authenticator.create(options, tampering);
      expectValidationError(
        await flows().post('/user/passkeys/add', { response }, user.token),
        INVALID_RESPONSE,
      );
    }
    expect(await list(user.token)).toEqual([]);
  });

  it('answers a malformed response with a 422 on the field, never a 500', async () => {
    const user = await registerUser(ctx.app);
    const format = { response: ['The response format is invalid.'] };
    for (const response of [
      'a string',
      ['an', 'array'],
      { id: 'abc', rawId: 'abc', type: 'public-key' },
      {
        id: 'a b',
        rawId: 'abc',
        type: 'public-key',
        response: { clientDataJSON: 'x', attestationObject: 'y' },
      },
      {
        id: 'abc',
        rawId: 'abc',
        type: 'public-key',
        response: { clientDataJSON: 'eyJ9', attestationObject: 'AA' },
      },
    ]) {
      const res = await flows().post('/user/passkeys/add', { response }, user.token);
      if (typeof response === 'string' || Array.isArray(response)) {
        expectValidationError(res, { response: ['The response must be an object.'] });
      } else if (!('response' in response) || response.id === 'a b') {
        expectValidationError(res, format);
      } else {
        expectValidationError(res, INVALID_RESPONSE);
      }
    }
  });

  it('renames and removes only the user’s own passkeys; another id is a 404', async () => {
    const owner = await registerUser(ctx.app);
    const other = await registerUser(ctx.app);
    const passkey = await flows().addPasskey(
      owner.token,
      new SoftwareAuthenticator(PASSKEY_ORIGIN),
      { current_password: owner.password },
      'Phone',
    );
    expect(passkey.name).toBe('Phone');
    const renamed = expectOk<{ passkey: Passkey }>(
      await flows().post(`/user/passkeys/${passkey.id}/rename`, { name: '민지의 노트북' }, owner.token),
    ).passkey;
    expect(renamed.name).toBe('민지의 노트북');
    for (const id of [passkey.id, 'not-a-uuid', '019ab0c5-1a2b-7c3d-8e4f-5a6b7c8d9e0f']) {
      expectError(
        await flows().post(`/user/passkeys/${id}/rename`, { name: 'Mine' }, other.token),
        ...NOT_FOUND,
      );
      expectError(
        await flows().post(`/user/passkeys/${id}/remove`, { current_password: other.password }, other.token),
        ...NOT_FOUND,
      );
    }
    // Removing needs the proof; the owner has a password, so the passkey is not the last way in.
    expectValidationError(await flows().post(`/user/passkeys/${passkey.id}/remove`, {}, owner.token), {
      current_password: ['The current password field is required.'],
    });
    expectOk(
      await flows().post(
        `/user/passkeys/${passkey.id}/remove`,
        { current_password: owner.password },
        owner.token,
      ),
    );
    expect(await list(owner.token)).toEqual([]);
  });
});
