import { sql } from 'kysely';
import { describe, expect, it, vi } from 'vitest';
import { PasskeyAssertions } from '../../src/account/passkeys/assertions.js';
import { useTestApp } from '../helpers/app.js';
import { expectTooManyRequests } from '../helpers/client-requests.js';
import { backends } from '../helpers/database.js';
import { bearer, type RegisteredUser, registerUser } from '../helpers/factories.js';
import { expectError, expectOk } from '../helpers/http.js';
import { expectAuthenticationFailed } from '../helpers/providers.js';
import {
  PASSKEY_ENV,
  PASSKEY_ORIGIN,
  passkeyFlows,
  SoftwareAuthenticator,
  type Tampering,
} from '../helpers/webauthn.js';

type SignedIn = { user: { id: string; api_token: string; email: string } };

/** Signing in with a passkey, and every way a hostile client could try to get a token out of it. */
describe.each(backends)('%s: passkey sign-in', (backend) => {
  const ctx = useTestApp(backend, PASSKEY_ENV);
  const flows = () => passkeyFlows(ctx.app);

  async function userWithPasskey(keepsCounter = true) {
    const user = await registerUser(ctx.app);
    const authenticator = new SoftwareAuthenticator(PASSKEY_ORIGIN, keepsCounter);
    const passkey = await flows().addPasskey(user.token, authenticator, { current_password: user.password });
    return { user, authenticator, passkey };
  }

  async function signIn(authenticator: SoftwareAuthenticator, tampering: Tampering = {}) {
    const { options, challenge_id } = await flows().signInOptions();
    const response = authenticator.get(options, authenticator.credentials[0], tampering);
    return {
      res: await flows().post('/auth/login/passkey', { challenge_id, response }),
      challenge_id,
      response,
    };
  }

  it('hands out discoverable options, then signs the owner in with a new token', async () => {
    const { user, authenticator } = await userWithPasskey();
    const { options, challenge_id } = await flows().signInOptions();
    expect(options).toMatchObject({
      rpId: 'accounts.example.com',
      allowCredentials: [],
      userVerification: 'required',
    });
    expect(challenge_id).toMatch(/^[0-9a-f-]{36}$/);
    const response = authenticator.get(options);
    const signedIn = expectOk<SignedIn>(
      await flows().post('/auth/login/passkey', { challenge_id, response }),
    );
    expect(signedIn.user.id).toBe(user.id);
    expect(signedIn.user.api_token).not.toBe(user.token);
    expectOk(
      await ctx.app.inject({ method: 'GET', url: '/v1/user/get', headers: bearer(signedIn.user.api_token) }),
    );
    const { passkeys } = expectOk<{ passkeys: { last_used_at: string | null }[] }>(
      await ctx.app.inject({ method: 'GET', url: '/v1/user/passkeys', headers: bearer(user.token) }),
    );
    expect(passkeys[0]?.last_used_at).not.toBeNull();
  });

  it('signs in with an authenticator that keeps no counter, again and again', async () => {
    const { user, authenticator } = await userWithPasskey(false);
    for (let round = 0; round < 2; round++) {
      expect(expectOk<SignedIn>((await signIn(authenticator)).res).user.id).toBe(user.id);
    }
  });

  it('answers a wrong signature, another origin or RP ID, or no user verification with the 401', async () => {
    const { authenticator } = await userWithPasskey();
    for (const tampering of [
      { badSignature: true },
      { origin: 'https://evil.example.net' },
      { rpId: 'evil.example.net' },
      { noUserVerification: true },
      { challenge: 'c29tZS1vdGhlci1jaGFsbGVuZ2U' },
    ]) {
      expectAuthenticationFailed((await signIn(authenticator, tampering)).res);
    }
  });

  it('answers an unknown credential with the 401', async () => {
    const stranger = new SoftwareAuthenticator(PASSKEY_ORIGIN);
    stranger.create({ challenge: 'AAAA', rp: { id: 'accounts.example.com' }, user: { id: 'AAAA' } });
    expectAuthenticationFailed((await signIn(stranger)).res);
  });

  it('refuses a replayed assertion, an expired challenge and a counter that went back', async () => {
    const { authenticator } = await userWithPasskey();
    const first = await signIn(authenticator);
    expectOk(first.res);
    // The same assertion (and challenge) again.
    expectAuthenticationFailed(
      await flows().post('/auth/login/passkey', {
        challenge_id: first.challenge_id,
        response: first.response,
      }),
    );
    // An expired challenge, moved back in the database.
    const { options, challenge_id } = await flows().signInOptions();
    await sql`UPDATE webauthn_challenges SET expires_at = now() - interval '1 second' WHERE id = ${challenge_id}`.execute(
      ctx.database.handle.db,
    );
    expectAuthenticationFailed(
      await flows().post('/auth/login/passkey', { challenge_id, response: authenticator.get(options) }),
    );
    // A counter below the stored one (a cloned authenticator): refused, the passkey's counter unchanged.
    expectAuthenticationFailed((await signIn(authenticator, { signCount: 1 })).res);
    // The genuine authenticator goes on (its counter is past the stored one).
    expectOk((await signIn(authenticator, { signCount: 50 })).res);
  });

  it('refuses a clone whose counter the genuine authenticator passed while its assertion was checked', async () => {
    const { passkey, authenticator } = await userWithPasskey();
    const credential = authenticator.credentials[0];
    if (!credential) throw new Error('the authenticator made no credential');
    // A copy of the key, taken now: its next assertion carries the counter the genuine one's next does.
    const clone = new SoftwareAuthenticator(PASSKEY_ORIGIN);
    clone.credentials.push({ ...credential });
    const storedCount = async () =>
      Number(
        (
          await ctx.database.handle.db
            .selectFrom('passkeys')
            .select('sign_count')
            .where('id', '=', passkey.id)
            .executeTakeFirstOrThrow()
        ).sign_count,
      );
    // Right after the clone's assertion proved against the stored counter (1), and before its use is
    // recorded, the genuine authenticator signs in twice: the stored counter is 3, past the clone's 2.
    let duringProof: (() => Promise<void>) | undefined = async () => {
      expectOk((await signIn(authenticator)).res);
      expectOk((await signIn(authenticator)).res);
    };
    const prove = PasskeyAssertions.prototype.prove;
    const racing = vi.spyOn(PasskeyAssertions.prototype, 'prove').mockImplementation(async function (
      this: PasskeyAssertions,
      ...args
    ) {
      const proven = await prove.apply(this, args);
      const interleave = duringProof;
      duringProof = undefined;
      await interleave?.();
      return proven;
    });
    try {
      expectAuthenticationFailed((await signIn(clone)).res);
    } finally {
      racing.mockRestore();
    }
    expect(duringProof).toBeUndefined();
    expect(await storedCount()).toBe(3);
  });

  it('keeps a challenge id to its purpose and refuses a malformed one', async () => {
    const { user, authenticator } = await userWithPasskey();
    const reauth = await flows().reauthProof(user.token, authenticator);
    expectAuthenticationFailed(
      await flows().post('/auth/login/passkey', {
        challenge_id: reauth.passkey_challenge_id,
        response: reauth.passkey_response,
      }),
    );
    const { options } = await flows().signInOptions();
    expectAuthenticationFailed(
      await flows().post('/auth/login/passkey', {
        challenge_id: 'not-a-uuid',
        response: authenticator.get(options),
      }),
    );
  });

  it('tells a disabled account so, only once the passkey proved right', async () => {
    const { user, authenticator } = await userWithPasskey();
    await sql`UPDATE users SET disabled_at = now() WHERE id = ${user.id}`.execute(ctx.database.handle.db);
    expectError((await signIn(authenticator)).res, 401, 'Unauthorized', 'This account is disabled.', {
      status: 'account_disabled',
    });
    expectAuthenticationFailed((await signIn(authenticator, { badSignature: true })).res);
  });

  it('issues exactly one token for one assertion sent many times at once', async () => {
    const { user, authenticator } = await userWithPasskey();
    const { options, challenge_id } = await flows().signInOptions();
    const response = authenticator.get(options);
    const answers = await Promise.all(
      Array.from({ length: 6 }, () => flows().post('/auth/login/passkey', { challenge_id, response })),
    );
    expect(answers.filter((res) => res.statusCode === 200)).toHaveLength(1);
    for (const res of answers.filter((answer) => answer.statusCode !== 200)) expectAuthenticationFailed(res);
    const tokens = await sql<{
      count: string;
    }>`SELECT count(*)::text AS count FROM api_tokens WHERE user_id = ${user.id}`.execute(
      ctx.database.handle.db,
    );
    // The registration's token and the one sign-in's.
    expect(tokens.rows[0]?.count).toBe('2');
  });
});

/** Failed passkey sign-ins count like failed logins: per (credential, IP) and on the account. */
describe.each(backends)('%s: passkey sign-in limits', (backend) => {
  const ctx = useTestApp(backend, {
    ...PASSKEY_ENV,
    RATE_LIMIT_ENABLED: 'true',
    RATE_LIMIT_LOGIN_FAILURES: '3/15m',
    RATE_LIMIT_LOGIN_IP: '1000/15m',
    RATE_LIMIT_REGISTER_IP: '1000/1h',
  });

  it('stops guessing after the failure limit, even with a good assertion', async () => {
    const flows = passkeyFlows(ctx.app);
    const user: RegisteredUser = await registerUser(ctx.app);
    const authenticator = new SoftwareAuthenticator(PASSKEY_ORIGIN);
    await flows.addPasskey(user.token, authenticator, { current_password: user.password });
    const attempt = async (tampering: Tampering = {}) => {
      const { options, challenge_id } = await flows.signInOptions();
      return flows.post('/auth/login/passkey', {
        challenge_id,
        response: authenticator.get(options, authenticator.credentials[0], tampering),
      });
    };
    for (let guess = 0; guess < 3; guess++) expectAuthenticationFailed(await attempt({ badSignature: true }));
    expectTooManyRequests(await attempt(), 15 * 60);
    // Refused before the assertion is checked: no session was issued, only the sign-up's.
    const sessions = await ctx.database.handle.db
      .selectFrom('api_tokens')
      .select('id')
      .where('user_id', '=', user.id)
      .execute();
    expect(sessions).toHaveLength(1);
  });
});
