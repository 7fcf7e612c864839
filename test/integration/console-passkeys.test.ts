import { describe, expect, it } from 'vitest';
import { backends } from '../helpers/database.js';
import { expectError, expectOk, expectValidationError } from '../helpers/http.js';
import { addStaff, codeOf, FROM_CONSOLE, staffCookieOf, testClock, useConsoleApp } from '../helpers/staff.js';
import { PASSKEY_ENV, PASSKEY_ORIGIN, SoftwareAuthenticator } from '../helpers/webauthn.js';

const INVALID = [
  'Unauthorized',
  'The login credentials are invalid.',
  { status: 'authentication_failed' },
] as const;
const PASSWORD = 'a staff pass phrase';

type Options = {
  options: { challenge: string; rp: { id: string }; user: { id: string } };
  challenge_id: string;
};
type RequestOptions = { options: { challenge: string; rpId: string }; challenge_id: string };

describe.each(backends)('%s: staff passkeys', (backend) => {
  const clock = testClock();
  const ctx = useConsoleApp(backend, clock, PASSKEY_ENV);

  const post = (url: string, payload: Record<string, unknown>) =>
    ctx.app.inject({ method: 'POST', url: `/admin/v1${url}`, headers: FROM_CONSOLE, payload });

  /** A member added and enrolled with a passkey of `authenticator`. */
  async function passkeyMember(authenticator: SoftwareAuthenticator) {
    const added = await addStaff(ctx, 'support');
    const created = expectOk<Options>(await post('/enrollment/passkey/options', { token: added.token }));
    const response = authenticator.create(created.options);
    const enroll = { token: added.token, password: PASSWORD, challenge_id: created.challenge_id, response };
    expect(expectOk(await post('/enrollment/passkey', enroll))).toEqual({ status: 'enrolled' });
    return { ...added, enroll };
  }

  /** Signs in with the passkey's answer to a new challenge (or a `tampered` one). */
  async function passkeyLogin(
    email: string,
    authenticator: SoftwareAuthenticator,
    password = PASSWORD,
    tampering = {},
  ) {
    const request = expectOk<RequestOptions>(await post('/auth/login/passkey/options', {}));
    const response = authenticator.get(request.options, undefined, tampering);
    const payload = { email, password, challenge_id: request.challenge_id, response };
    return { res: await post('/auth/login/passkey', payload), payload };
  }

  it('enrolls a passkey on the one-time link, then signs in with the password and the passkey, a challenge once', async () => {
    const authenticator = new SoftwareAuthenticator(PASSKEY_ORIGIN);
    const added = await addStaff(ctx, 'support');
    const created = expectOk<Options>(await post('/enrollment/passkey/options', { token: added.token }));
    expect(created.options.rp.id).toBe('accounts.example.com');
    // "staff:" and 32 bytes: never the length of a user's handle (32 bytes), so never one of theirs.
    expect(Buffer.from(created.options.user.id, 'base64url').subarray(0, 6).toString()).toBe('staff:');
    expect(Buffer.from(created.options.user.id, 'base64url')).toHaveLength(38);
    // Another origin's credential proves nothing, and uses the challenge up.
    const scratch = new SoftwareAuthenticator(PASSKEY_ORIGIN);
    const foreign = scratch.create(created.options, { origin: 'https://evil.example' });
    const refused = { token: added.token, password: PASSWORD, challenge_id: created.challenge_id };
    expectValidationError(await post('/enrollment/passkey', { ...refused, response: foreign }), {
      response: ['The response could not be verified; ask for new options and try again.'],
    });
    const again = scratch.create(created.options);
    expectValidationError(await post('/enrollment/passkey', { ...refused, response: again }), {
      response: ['The response could not be verified; ask for new options and try again.'],
    });
    // Nothing signs in before the enrollment is done.
    expectError((await passkeyLogin(added.email, scratch)).res, 401, ...INVALID);

    const member = await passkeyMember(authenticator);
    const used = ['GoneHttpException', 'This enrollment link has been used.', { status: 'enrollment_used' }];
    expectError(await post('/enrollment/passkey', member.enroll), 410, ...(used as [string, string, object]));
    expectError(
      await post('/enrollment/passkey/options', { token: member.token }),
      410,
      ...(used as [string, string, object]),
    );

    const { res, payload } = await passkeyLogin(member.email, authenticator);
    expect(expectOk(res)).toMatchObject({ staff: { id: member.id, email: member.email, role: 'support' } });
    expect(staffCookieOf(res)).toMatch(/^accounts_staff=[A-Za-z0-9_-]{43}$/);
    // The same answer again: its challenge is used up.
    expectError(await post('/auth/login/passkey', payload), 401, ...INVALID);
    // A challenge answered after its five minutes.
    const late = expectOk<RequestOptions>(await post('/auth/login/passkey/options', {}));
    clock.advance(5 * 60_000);
    const response = authenticator.get(late.options);
    const stale = { email: member.email, password: PASSWORD, challenge_id: late.challenge_id, response };
    expectError(await post('/auth/login/passkey', stale), 401, ...INVALID);
    // Another member's passkey does not sign this one in.
    const otherKey = new SoftwareAuthenticator(PASSKEY_ORIGIN);
    await passkeyMember(otherKey);
    expectError((await passkeyLogin(member.email, otherKey)).res, 401, ...INVALID);
    expectOk((await passkeyLogin(member.email, authenticator)).res);
  });

  it('counts wrong passwords, wrong passkey answers and codes toward the lockout of a passkey member', async () => {
    const authenticator = new SoftwareAuthenticator(PASSKEY_ORIGIN);
    const member = await passkeyMember(authenticator);
    const code = (email: string) =>
      post('/auth/login', { email, password: PASSWORD, code: codeOf('JBSWY3DPEHPK3PXP', clock) });
    expectError((await passkeyLogin(member.email, authenticator, 'wrong pass phrase')).res, 401, ...INVALID);
    expectError(
      (await passkeyLogin(member.email, authenticator, PASSWORD, { badSignature: true })).res,
      401,
      ...INVALID,
    );
    expectError(
      (await passkeyLogin(member.email, authenticator, PASSWORD, { noUserVerification: true })).res,
      401,
      ...INVALID,
    );
    // A code, for a member whose factor is a passkey: a wrong factor.
    expectError(await code(member.email), 401, ...INVALID);
    expectError(
      (await passkeyLogin(member.email, authenticator, PASSWORD, { badSignature: true })).res,
      401,
      ...INVALID,
    );
    expectError((await passkeyLogin(member.email, authenticator)).res, 401, ...INVALID);
    clock.advance(30 * 60_000);
    expectOk((await passkeyLogin(member.email, authenticator)).res);
  });
});
