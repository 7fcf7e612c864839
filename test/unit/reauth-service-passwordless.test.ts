import { describe, expect, it } from 'vitest';
import { InvalidCredentialsError, UnauthenticatedError } from '../../src/errors.js';
import { cleared, counted, proof, refunded, refusal, world } from '../helpers/reauth-fakes.js';

describe('Reauthentication.confirm for an account without a password', () => {
  const kakao = { provider: 'kakao', userId: 'k1', accessToken: 'tok' };
  const ok = async () => {};

  it('takes a fresh token of the linked identity', async () => {
    const { reauth, auth, log } = world({
      passwordHash: null,
      linked: [['kakao', 'k1']],
      verifiers: { kakao: ok },
    });
    await reauth.confirm(auth, proof({ credentials: [kakao] }), 'password');
    expect(log).toEqual(['links u1', ...counted, 'verify kakao k1 tok', ...cleared]);
  });

  it('refuses a token of another identity at the same provider, unverified, as a wrong proof', async () => {
    const { reauth, auth, log } = world({
      passwordHash: null,
      linked: [['kakao', 'k2']],
      verifiers: { kakao: ok },
    });
    expect(await refusal(reauth.confirm(auth, proof({ credentials: [kakao] }), 'password'))).toEqual({
      kakao_access_token: [{ rule: 'current_password' }],
    });
    expect(log).toEqual(['links u1', ...counted]);
  });

  it('refuses a token the provider rejects; a provider fault is no guess', async () => {
    const rejected = world({
      passwordHash: null,
      linked: [['kakao', 'k1']],
      verifiers: { kakao: async () => Promise.reject(new InvalidCredentialsError()) },
    });
    expect(
      await refusal(rejected.reauth.confirm(rejected.auth, proof({ credentials: [kakao] }), 'password')),
    ).toEqual({
      kakao_access_token: [{ rule: 'current_password' }],
    });
    expect(rejected.log).toEqual(['links u1', ...counted, 'verify kakao k1 tok']);
    const down = new Error('provider down');
    const fault = world({
      passwordHash: null,
      linked: [['kakao', 'k1']],
      verifiers: { kakao: async () => Promise.reject(down) },
    });
    expect(await refusal(fault.reauth.confirm(fault.auth, proof({ credentials: [kakao] }), 'password'))).toBe(
      down,
    );
    expect(fault.log).toEqual(['links u1', ...counted, 'verify kakao k1 tok', ...refunded]);
  });

  it('uses the first offered provider that is linked and verifiable', async () => {
    const { reauth, auth, log } = world({
      passwordHash: null,
      linked: [
        ['kakao', 'k1'],
        ['naver', 'n1'],
        ['apple', 'a1'],
      ],
      verifiers: { kakao: ok, naver: ok },
    });
    const offered = [
      { provider: 'google', userId: 'g1', accessToken: 'x' },
      { provider: 'apple', userId: 'a1', accessToken: 'x' },
      { provider: 'naver', userId: 'n1', accessToken: 'n' },
      kakao,
    ];
    await reauth.confirm(auth, proof({ credentials: offered }), 'password');
    expect(log).toEqual(['links u1', ...counted, 'verify naver n1 n', ...cleared]);
  });

  it('names the fields of the first linked, verifiable provider when no usable proof came', async () => {
    const { reauth, auth, log } = world({
      passwordHash: null,
      linked: [
        ['naver', 'n1'],
        ['apple', 'a1'],
        ['kakao', 'k1'],
      ],
      verifiers: { naver: ok, kakao: ok },
    });
    const offered = [{ provider: 'apple', userId: 'a1', accessToken: 'x' }];
    expect(await refusal(reauth.confirm(auth, proof({ credentials: offered }), 'password'))).toEqual({
      kakao_user_id: [{ rule: 'required' }],
      kakao_access_token: [{ rule: 'required' }],
    });
    expect(log).toEqual(['links u1']);
  });

  it('names the passkey’s fields, else current_password, when no linked provider can be verified', async () => {
    const passkeys = world({ passwordHash: null, linked: [['apple', 'a1']], hasPasskeys: true });
    expect(await refusal(passkeys.reauth.confirm(passkeys.auth, proof(), 'password'))).toEqual({
      passkey_challenge_id: [{ rule: 'required' }],
      passkey_response: [{ rule: 'required' }],
    });
    expect(passkeys.log).toEqual(['window t1', 'links u1', 'has passkeys u1']);
    const none = world({ passwordHash: null });
    expect(await refusal(none.reauth.confirm(none.auth, proof(), 'password'))).toEqual({
      current_password: [{ rule: 'required' }],
    });
  });
});

describe('Reauthentication.openWindow', () => {
  it('opens the session’s window for the factors proved, until the time the store gives', async () => {
    const { reauth, auth, log } = world({ window: 2 });
    expect(await reauth.openWindow(auth, proof({ currentPassword: 'right' }))).toEqual({
      reauthenticated_until: '2026-11-28T12:15:00.000Z',
    });
    expect(log).toEqual([...counted, 'password $argon2id$h right', ...cleared, 'open t1 900000 1']);
    const passkey = world();
    await passkey.reauth.openWindow(
      passkey.auth,
      proof({ passkey: { challengeId: 'c1', response: {} as never } }),
    );
    expect(passkey.log.at(-1)).toBe('open t1 900000 2');
  });

  it('never renews itself from a window: a proof is needed', async () => {
    const { reauth, auth } = world({ window: 2 });
    expect(await refusal(reauth.openWindow(auth, proof()))).toEqual({
      current_password: [{ rule: 'required' }],
    });
  });

  it('answers 401 when the session was revoked while the proof was checked', async () => {
    const { reauth, auth } = world({ opened: undefined });
    expect(await refusal(reauth.openWindow(auth, proof({ currentPassword: 'right' })))).toBeInstanceOf(
      UnauthenticatedError,
    );
  });
});
