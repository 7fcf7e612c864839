import { describe, expect, it } from 'vitest';
import {
  Reauthentication,
  type ReauthenticationDeps,
  type ReauthProof,
  type SecondFactorCheck,
} from '../../src/account/reauth/service.js';
import type { UserRow } from '../../src/db/schema.js';
import {
  InvalidCredentialsError,
  TooManyRequestsError,
  UnauthenticatedError,
  ValidationError,
} from '../../src/errors.js';
import type { PasswordHasher } from '../../src/lib/passwords.js';
import type { RateCounter } from '../../src/limits/rate-counter.js';
import type { ProviderAccountsRepo } from '../../src/modules/providers/repo.js';
import type { ProviderVerifier } from '../../src/providers/verifier.js';

/** How the fakes are set up for one test; everything they are asked goes to `log`, in order. */
interface Setup {
  passwordHash?: string | null;
  /** The passwords the fake hasher takes as right. */
  password?: string;
  secondFactorOn?: boolean;
  check?: SecondFactorCheck;
  passkeyRight?: boolean;
  hasPasskeys?: boolean;
  window?: number;
  linked?: [string, string][];
  /** Providers this deployment verifies with, and what each verify does. */
  verifiers?: Record<string, () => Promise<void>>;
  /** A counter that refuses every hit: `token` or `account`. */
  full?: 'token' | 'account';
  opened?: Date | undefined;
}

function world(setup: Setup = {}) {
  const log: string[] = [];
  const counter = (name: 'token' | 'account'): RateCounter => ({
    consume: async (key) => {
      log.push(`${name} consume ${key}`);
      if (setup.full === name) throw new TooManyRequestsError(30);
    },
    refund: async (key) => void log.push(`${name} refund ${key}`),
    reset: async (key) => void log.push(`${name} reset ${key}`),
  });
  const verifiers = new Map<string, ProviderVerifier>(
    Object.entries(setup.verifiers ?? {}).map(([name, verify]) => [
      name,
      {
        name,
        verify: async (userId: string, token: string) => {
          log.push(`verify ${name} ${userId} ${token}`);
          await verify();
          return {} as Awaited<ReturnType<ProviderVerifier['verify']>>;
        },
      },
    ]),
  );
  const deps: ReauthenticationDeps = {
    hasher: {
      verify: async (hash: string, password: string) => {
        log.push(`password ${hash} ${password}`);
        return password === (setup.password ?? 'right');
      },
    } as unknown as PasswordHasher,
    verifiers,
    links: {
      identitiesOf: async (userId: string) => {
        log.push(`links ${userId}`);
        return setup.linked ?? [];
      },
    } as unknown as ProviderAccountsRepo,
    tokenGuesses: counter('token'),
    accountGuesses: counter('account'),
    passkeys: {
      confirm: async (userId, proof) => {
        log.push(`passkey ${userId} ${proof.challengeId}`);
        return setup.passkeyRight ?? true;
      },
      hasPasskeys: async (userId) => {
        log.push(`has passkeys ${userId}`);
        return setup.hasPasskeys ?? false;
      },
    },
    secondFactor: {
      isOn: async (userId) => {
        log.push(`second factor on ${userId}`);
        return setup.secondFactorOn ?? false;
      },
      check: async (userId, offer) => {
        log.push(`second factor check ${userId} ${offer.code} ${offer.recoveryCode}`);
        return setup.check ?? { kind: 'right' };
      },
    },
    windows: {
      open: async (tokenId, durationMs, factors) => {
        log.push(`open ${tokenId} ${durationMs} ${factors}`);
        return 'opened' in setup ? setup.opened : new Date(Date.UTC(2026, 10, 28, 12, 15));
      },
      openFactors: async (tokenId) => {
        log.push(`window ${tokenId}`);
        return setup.window ?? 0;
      },
    },
    windowMs: 900_000,
  };
  const user = { id: 'u1', password_hash: 'passwordHash' in setup ? setup.passwordHash : '$argon2id$h' };
  const auth = { user: user as UserRow, tokenId: 't1' };
  return { reauth: new Reauthentication(deps), auth, log };
}

const proof = (extra: Partial<ReauthProof> = {}): ReauthProof => ({ credentials: [], ...extra });
const counted = ['token consume reauth-token:t1', 'account consume current-password:u1'];
const cleared = ['account reset current-password:u1', 'token reset reauth-token:t1'];
const kept: string[] = [];
const refunded = ['account refund current-password:u1', 'token refund reauth-token:t1'];
const failures = (error: unknown) => (error instanceof ValidationError ? error.failures : error);
const secondFactorNeeded = { code: [{ rule: 'reauth_second_factor' }] };

async function refusal(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => 'passed',
    (error: unknown) => failures(error),
  );
}

describe('Reauthentication.confirm with the password', () => {
  it('passes the right password, counting it under both counters and then clearing them', async () => {
    const { reauth, auth, log } = world();
    await reauth.confirm(auth, proof({ currentPassword: 'right' }), 'password');
    expect(log).toEqual([...counted, 'password $argon2id$h right', ...cleared]);
  });

  it('refuses a wrong one with the 422 on current_password, keeping both hits', async () => {
    const { reauth, auth, log } = world();
    expect(await refusal(reauth.confirm(auth, proof({ currentPassword: 'wrong' }), 'password'))).toEqual({
      current_password: [{ rule: 'current_password' }],
    });
    expect(log).toEqual([...counted, 'password $argon2id$h wrong', ...kept]);
  });

  it('asks for the password when none came and no window is open, counting nothing', async () => {
    const { reauth, auth, log } = world();
    expect(await refusal(reauth.confirm(auth, proof(), 'password'))).toEqual({
      current_password: [{ rule: 'required' }],
    });
    expect(log).toEqual(['window t1']);
  });

  it('checks the session’s counter first: a session over its limit costs the account nothing', async () => {
    const { reauth, auth, log } = world({ full: 'token' });
    const error = await refusal(reauth.confirm(auth, proof({ currentPassword: 'right' }), 'password'));
    expect(error).toBeInstanceOf(TooManyRequestsError);
    expect(log).toEqual(['token consume reauth-token:t1']);
  });

  it('gives the session’s hit back when the account’s counter is over its limit', async () => {
    const { reauth, auth, log } = world({ full: 'account' });
    const error = await refusal(reauth.confirm(auth, proof({ currentPassword: 'right' }), 'password'));
    expect(error).toBeInstanceOf(TooManyRequestsError);
    expect(log).toEqual([...counted, 'token refund reauth-token:t1']);
  });
});

describe('Reauthentication.confirm within a window', () => {
  it('lets a request with no proof through a window as strong as its change, reading no second factor', async () => {
    const { reauth, auth, log } = world({ window: 1 });
    await reauth.confirm(auth, proof(), 'password');
    expect(log).toEqual(['window t1']);
  });

  it('refuses a one-factor window where two are needed, and takes a two-factor one', async () => {
    const one = world({ window: 1, secondFactorOn: true });
    expect(await refusal(one.reauth.confirm(one.auth, proof(), 'email'))).toEqual(secondFactorNeeded);
    expect(one.log).toEqual(['second factor on u1', 'window t1']);
    const two = world({ window: 2, secondFactorOn: true });
    await two.reauth.confirm(two.auth, proof(), 'passkey');
    expect(two.log).toEqual(['second factor on u1', 'window t1']);
  });

  it('needs one factor for a way in while the second factor is off', async () => {
    const { reauth, auth, log } = world({ window: 1, secondFactorOn: false });
    await reauth.confirm(auth, proof(), 'provider_link');
    expect(log).toEqual(['second factor on u1', 'window t1']);
  });

  it('still checks a proof offered inside a window', async () => {
    const { reauth, auth, log } = world({ window: 2 });
    expect(await refusal(reauth.confirm(auth, proof({ currentPassword: 'wrong' }), 'password'))).toEqual({
      current_password: [{ rule: 'current_password' }],
    });
    expect(log).toEqual([...counted, 'password $argon2id$h wrong']);
  });
});

describe('Reauthentication.confirm with two factors', () => {
  const code = { code: '123456', recoveryCode: undefined };

  it('takes the password and a right code as two factors, each counted', async () => {
    const { reauth, auth, log } = world({ secondFactorOn: true });
    await reauth.confirm(auth, proof({ currentPassword: 'right', secondFactor: code }), 'email');
    expect(log).toEqual([
      'second factor on u1',
      ...counted,
      'password $argon2id$h right',
      ...cleared,
      ...counted,
      'second factor check u1 123456 undefined',
      ...cleared,
    ]);
  });

  it('takes a recovery code alone beside the password', async () => {
    const { reauth, auth, log } = world({ secondFactorOn: true });
    const recovery = { code: undefined, recoveryCode: 'abcde-fghij' };
    await reauth.confirm(auth, proof({ currentPassword: 'right', secondFactor: recovery }), 'email');
    expect(log.at(-3)).toBe('second factor check u1 undefined abcde-fghij');
  });

  it('refuses the password alone where two factors are needed, and an empty offer is no code', async () => {
    const { reauth, auth, log } = world({ secondFactorOn: true });
    const empty = { code: undefined, recoveryCode: undefined };
    expect(
      await refusal(reauth.confirm(auth, proof({ currentPassword: 'right', secondFactor: empty }), 'email')),
    ).toEqual(secondFactorNeeded);
    expect(log).toEqual(['second factor on u1', ...counted, 'password $argon2id$h right', ...cleared]);
  });

  it('counts a wrong code as a guess and answers its 422', async () => {
    const wrong = new ValidationError({ code: [{ rule: 'second_factor_code' }] });
    const { reauth, auth, log } = world({ secondFactorOn: true, check: { kind: 'wrong', error: wrong } });
    const answer = await reauth
      .confirm(auth, proof({ currentPassword: 'right', secondFactor: code }), 'email')
      .catch((error: unknown) => error);
    expect(answer).toBe(wrong);
    expect(log.slice(-3)).toEqual([...counted, 'second factor check u1 123456 undefined']);
  });

  it('gives the hits back for a code refused unchecked (a wait), and answers the refusal', async () => {
    const wait = new TooManyRequestsError(20);
    const { reauth, auth, log } = world({ secondFactorOn: true, check: { kind: 'refused', error: wait } });
    const answer = await reauth
      .confirm(auth, proof({ currentPassword: 'right', secondFactor: code }), 'email')
      .catch((error: unknown) => error);
    expect(answer).toBe(wait);
    expect(log.slice(-5)).toEqual([...counted, 'second factor check u1 123456 undefined', ...refunded]);
  });

  it('counts a code for an authenticator that is off as one factor', async () => {
    const { reauth, auth } = world({ secondFactorOn: true, check: { kind: 'off' } });
    expect(
      await refusal(reauth.confirm(auth, proof({ currentPassword: 'right', secondFactor: code }), 'email')),
    ).toEqual(secondFactorNeeded);
  });
});

describe('Reauthentication.confirm with a passkey', () => {
  const passkey = { challengeId: 'c1', response: {} as never };

  it('takes a passkey as two factors, in place of the password', async () => {
    const { reauth, auth, log } = world({ secondFactorOn: true });
    await reauth.confirm(auth, proof({ passkey }), 'passkey');
    expect(log).toEqual(['second factor on u1', ...counted, 'passkey u1 c1', ...cleared]);
  });

  it('refuses a wrong assertion on passkey_response, counted like a wrong password', async () => {
    const { reauth, auth, log } = world({ passkeyRight: false });
    expect(await refusal(reauth.confirm(auth, proof({ passkey }), 'export'))).toEqual({
      passkey_response: [{ rule: 'passkey_incorrect' }],
    });
    expect(log).toEqual([...counted, 'passkey u1 c1']);
  });
});

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
