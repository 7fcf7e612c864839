import { describe, expect, it } from 'vitest';
import { SessionGate } from '../../src/account/sign-in/session-gate.js';
import { SignInTokens } from '../../src/account/sign-in/tokens.js';
import type { Executor } from '../../src/db/transaction.js';
import {
  AccountDeletionScheduledError,
  AccountDisabledError,
  InvalidCredentialsError,
} from '../../src/errors.js';
import type { PasswordHasher } from '../../src/lib/passwords.js';
import { hashApiToken } from '../../src/lib/tokens.js';
import type { ChallengesRepo } from '../../src/modules/second-factor/challenges-repo.js';
import type { SecondFactorRepo } from '../../src/modules/second-factor/repo.js';
import type { TokensService } from '../../src/modules/tokens/service.js';
import type { UsersRepo } from '../../src/modules/users/repo.js';

/** The row SignInTokens re-reads under a lock. */
interface State {
  password_hash: string | null;
  disabled_at: Date | null;
  deletion_due_at: Date | null;
  second_factor_enabled: boolean;
}

const open: State = {
  password_hash: '$argon2id$old',
  disabled_at: null,
  deletion_due_at: null,
  second_factor_enabled: false,
};
const due = new Date('2026-12-07T10:00:00Z');

/** A database whose transaction hands `trx` to the work, and fakes that log what they are asked. */
function world(options: {
  state?: State | undefined;
  holds?: boolean;
  rehash?: boolean;
  secondFactorOn?: boolean;
}) {
  const log: string[] = [];
  const trx = { name: 'trx' } as unknown as Executor;
  const within = (executor: Executor) => (executor === trx ? 'in trx' : 'outside');
  const db = {
    transaction: () => ({ execute: <T>(work: (t: Executor) => Promise<T>) => work(trx) }),
  } as unknown as Executor;
  const users = {
    with: (executor: Executor) => ({
      signInState: async (userId: string, lock: string) => {
        log.push(`state ${userId} ${lock} ${within(executor)}`);
        return 'state' in options ? options.state : open;
      },
      replacePasswordHash: async (userId: string, hash: string) => {
        log.push(`rehash ${userId} ${hash} ${within(executor)}`);
      },
    }),
  } as unknown as UsersRepo;
  const tokens = {
    issue: async (executor: Executor, userId: string, name: string | undefined, method: string) => {
      log.push(`issue ${userId} ${name} ${method} ${within(executor)}`);
      return { id: 'k1', token: 'secret' };
    },
    issueIfSignInHolds: async (userId: string, hash: string, name: string | undefined) => {
      log.push(`issue if holds ${userId} ${hash} ${name}`);
      return (options.holds ?? true) ? { id: 'k0', token: 'fast' } : undefined;
    },
    issuedTo: async (token: string) => {
      log.push(`issued to? ${token}`);
      return token === 'device-of-u1' ? 'u1' : undefined;
    },
  } as unknown as TokensService;
  const hasher = {
    needsRehash: (hash: string) => {
      log.push(`needs rehash ${hash}`);
      return options.rehash ?? false;
    },
    hash: async (password: string) => `$argon2id$new(${password})`,
  } as unknown as PasswordHasher;
  const secondFactor = {
    with: (executor: Executor) => ({
      clearFailures: async (userId: string) => void log.push(`clear failures ${userId} ${within(executor)}`),
    }),
    isEnabled: async (userId: string) => {
      log.push(`second factor on? ${userId}`);
      return options.secondFactorOn ?? false;
    },
  } as unknown as SecondFactorRepo;
  const challenges = {
    with: (executor: Executor) => ({
      insert: async (challenge: Record<string, unknown>) => {
        log.push(`challenge ${within(executor)}`);
        inserted.push(challenge);
      },
      deleteAllOf: async (userId: string) => void log.push(`end challenges ${userId} ${within(executor)}`),
    }),
  } as unknown as ChallengesRepo;
  const inserted: Record<string, unknown>[] = [];
  return {
    log,
    trx,
    inserted,
    gate: new SessionGate({ db, secondFactorRepo: secondFactor, challenges }),
    tokens: new SignInTokens({ db, users, tokens, hasher, secondFactor }),
  };
}

const account = { id: 'u1', disabled_at: null, deletion_due_at: null };
const email = { method: 'email', knownDevice: true };
const password = { factors: 1, purpose: 'sign_in' } as const;

describe('SessionGate.admit', () => {
  it('refuses a disabled account without reading its second factor', async () => {
    const { gate, log } = world({});
    const answer = await gate.admit({ ...account, disabled_at: new Date() }, email, password);
    expect(answer.kind === 'refused' && answer.error).toBeInstanceOf(AccountDisabledError);
    expect(log).toEqual([]);
  });

  it('reads the second factor when the row did not say, and gives a session when it is off', async () => {
    const { gate, log } = world({ secondFactorOn: false });
    expect(await gate.admit(account, email, password)).toEqual({ kind: 'session' });
    expect(log).toEqual(['second factor on? u1']);
  });

  it('takes the row’s second factor as read, and makes a challenge for it', async () => {
    const { gate, log, inserted } = world({ secondFactorOn: false });
    const before = Date.now();
    const answer = await gate.admit({ ...account, second_factor_enabled: true }, email, password);
    const after = Date.now();
    expect(log).toEqual(['challenge in trx']);
    expect(answer.kind).toBe('second_factor');
    const challenge = answer.kind === 'second_factor' ? answer.challenge : '';
    expect(challenge).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const [row] = inserted;
    expect(row).toEqual({
      id: expect.any(String),
      userId: 'u1',
      challengeHash: hashApiToken(challenge),
      expiresAt: expect.any(Date),
      method: 'email',
      knownDevice: true,
      purpose: 'sign_in',
    });
    // Five minutes to open the authenticator app.
    const expires = (row as { expiresAt: Date }).expiresAt.getTime();
    expect(expires).toBeGreaterThanOrEqual(before + 300_000);
    expect(expires).toBeLessThanOrEqual(after + 300_000);
  });

  it('lets a deletion’s cancel past the grace period’s refusal, to the second factor', async () => {
    const { gate } = world({ secondFactorOn: true });
    const scheduled = { ...account, deletion_due_at: due };
    const refused = await gate.admit(scheduled, email, password);
    expect(refused.kind === 'refused' && refused.error).toBeInstanceOf(AccountDeletionScheduledError);
    const cancel = await gate.admit(scheduled, email, { factors: 1, purpose: 'deletion_cancel' });
    expect(cancel.kind).toBe('second_factor');
  });

  it('ends the account’s challenges inside the caller’s transaction', async () => {
    const { gate, log, trx } = world({});
    await gate.endChallengesWithin(trx, 'u1');
    expect(log).toEqual(['end challenges u1 in trx']);
  });
});

describe('SignInTokens.afterPassword', () => {
  it('issues in one statement when the hash needs no upgrade and still holds', async () => {
    const { tokens, log } = world({});
    expect(await tokens.afterPassword('u1', '$argon2id$old', 'pw', 'phone')).toEqual({
      kind: 'issued',
      token: { id: 'k0', token: 'fast' },
    });
    expect(log).toEqual(['needs rehash $argon2id$old', 'issue if holds u1 $argon2id$old phone']);
  });

  it('tells a changed hash from a disabled account when the statement wrote nothing', async () => {
    const changed = world({ holds: false, state: { ...open, password_hash: '$argon2id$other' } });
    expect(await changed.tokens.afterPassword('u1', '$argon2id$old', 'pw', 'phone')).toEqual({
      kind: 'password-changed',
    });
    expect(changed.log.slice(2)).toEqual(['state u1 share in trx']);
    const disabled = world({ holds: false, state: { ...open, disabled_at: new Date() } });
    const answer = await disabled.tokens.afterPassword('u1', '$argon2id$old', 'pw', 'phone');
    expect(answer.kind === 'refused' && answer.error).toBeInstanceOf(AccountDisabledError);
    const gone = world({ holds: false, state: undefined });
    expect(await gone.tokens.afterPassword('u1', '$argon2id$old', 'pw', 'phone')).toEqual({
      kind: 'password-changed',
    });
  });

  it('issues from the transaction when the hash still holds there (a parallel write settled)', async () => {
    const { tokens, log } = world({ holds: false });
    expect(await tokens.afterPassword('u1', '$argon2id$old', 'pw', 'phone')).toEqual({
      kind: 'issued',
      token: { id: 'k1', token: 'secret' },
    });
    expect(log.slice(2)).toEqual(['state u1 share in trx', 'issue u1 phone password in trx']);
  });

  it('upgrades a weak hash under an update lock, in the token’s transaction', async () => {
    const { tokens, log } = world({ rehash: true });
    expect(await tokens.afterPassword('u1', '$argon2id$old', 'pw', undefined)).toEqual({
      kind: 'issued',
      token: { id: 'k1', token: 'secret' },
    });
    expect(log).toEqual([
      'needs rehash $argon2id$old',
      'state u1 update in trx',
      'rehash u1 $argon2id$new(pw) in trx',
      'issue u1 undefined password in trx',
    ]);
  });

  it('writes no token when a second factor was turned on since the row was read', async () => {
    const { tokens, log } = world({ rehash: true, state: { ...open, second_factor_enabled: true } });
    expect(await tokens.afterPassword('u1', '$argon2id$old', 'pw', 'phone')).toEqual({
      kind: 'password-changed',
    });
    expect(log).toEqual(['needs rehash $argon2id$old', 'state u1 update in trx']);
  });

  it('refuses under the lock a deletion scheduled since the row was read', async () => {
    const { tokens } = world({ rehash: true, state: { ...open, deletion_due_at: due } });
    const answer = await tokens.afterPassword('u1', '$argon2id$old', 'pw', 'phone');
    expect(answer.kind === 'refused' && answer.error).toBeInstanceOf(AccountDeletionScheduledError);
  });
});

describe('SignInTokens.issueWithin, afterPasskey and afterProvider', () => {
  it('clears the wrong-code run only for a two-factor session of an account with a second factor', async () => {
    const on = world({ state: { ...open, second_factor_enabled: true } });
    const twoFactors = { factors: 2, purpose: 'sign_in' } as const;
    expect(await on.tokens.issueWithin(on.trx, 'u1', twoFactors, 'phone', 'second_factor')).toEqual({
      kind: 'issued',
      token: { id: 'k1', token: 'secret' },
    });
    expect(on.log).toEqual([
      'state u1 share in trx',
      'clear failures u1 in trx',
      'issue u1 phone second_factor in trx',
    ]);
    const off = world({});
    await off.tokens.issueWithin(off.trx, 'u1', twoFactors, 'phone', 'passkey');
    expect(off.log).toEqual(['state u1 share in trx', 'issue u1 phone passkey in trx']);
    const one = world({});
    await one.tokens.issueWithin(one.trx, 'u1', password, 'phone', 'provider');
    expect(one.log).toEqual(['state u1 share in trx', 'issue u1 phone provider in trx']);
  });

  it('answers gone, the second factor, or the refusal without a token', async () => {
    const gone = world({ state: undefined });
    expect(await gone.tokens.issueWithin(gone.trx, 'u1', password, 'x', 'provider')).toEqual({
      kind: 'gone',
    });
    const on = world({ state: { ...open, second_factor_enabled: true } });
    expect(await on.tokens.issueWithin(on.trx, 'u1', password, 'x', 'provider')).toEqual({
      kind: 'second_factor',
    });
    expect(on.log).toEqual(['state u1 share in trx']);
  });

  it('issues a passkey’s token with what goes alongside, or says replayed', async () => {
    const { tokens, log } = world({});
    const issue = await tokens.afterPasskey(
      'u1',
      'phone',
      async () => true,
      async () => 'event',
    );
    expect(issue).toEqual({ kind: 'issued', token: { id: 'k1', token: 'secret' }, alongside: 'event' });
    expect(log).toEqual(['state u1 share in trx', 'issue u1 phone passkey in trx']);
    const lost = world({});
    expect(
      await lost.tokens.afterPasskey(
        'u1',
        'phone',
        async () => false,
        async () => 'event',
      ),
    ).toEqual({ kind: 'replayed' });
    expect(lost.log).toEqual([]);
    const gone = world({ state: undefined });
    expect(
      await gone.tokens.afterPasskey(
        'u1',
        'phone',
        async () => true,
        async () => 'event',
      ),
    ).toEqual({ kind: 'replayed' });
  });

  it('rolls a refused passkey sign-in back and answers the refusal', async () => {
    const { tokens } = world({ state: { ...open, disabled_at: new Date() } });
    const written: string[] = [];
    const issue = await tokens.afterPasskey(
      'u1',
      'phone',
      async () => true,
      async () => void written.push('event'),
    );
    expect(issue.kind === 'refused' && issue.error).toBeInstanceOf(AccountDisabledError);
    expect(written).toEqual([]);
    // Any other error of the work passes through as it is (a ServiceError: writeTransaction hands it on).
    const fault = new InvalidCredentialsError();
    await expect(
      tokens.afterPasskey(
        'u1',
        'phone',
        async () => Promise.reject(fault),
        async () => undefined,
      ),
    ).rejects.toBe(fault);
  });

  it('issues a provider’s token with one factor, with what goes alongside', async () => {
    const { tokens, log } = world({});
    expect(await tokens.afterProvider('u1', 'phone', async () => 'event')).toEqual({
      kind: 'issued',
      token: { id: 'k1', token: 'secret' },
      alongside: 'event',
    });
    expect(log).toEqual(['state u1 share in trx', 'issue u1 phone provider in trx']);
    const on = world({ state: { ...open, second_factor_enabled: true } });
    expect(await on.tokens.afterProvider('u1', 'phone', async () => 'event')).toEqual({
      kind: 'second_factor',
    });
  });

  it('knows a device only by a token issued to this user, and looks nothing up without one', async () => {
    const { tokens, log } = world({});
    expect(await tokens.isKnownDevice('device-of-u1', 'u1')).toBe(true);
    expect(await tokens.isKnownDevice('device-of-u1', 'u2')).toBe(false);
    expect(await tokens.isKnownDevice('other', 'u1')).toBe(false);
    expect(await tokens.isKnownDevice(undefined, 'u1')).toBe(false);
    expect(log).toEqual(['issued to? device-of-u1', 'issued to? device-of-u1', 'issued to? other']);
  });

  it('holds a passkey sign-in to the grace period, and counts it as two factors', async () => {
    const scheduled = world({ state: { ...open, deletion_due_at: due } });
    const refused = await scheduled.tokens.afterPasskey(
      'u1',
      'phone',
      async () => true,
      async () => 'event',
    );
    expect(refused.kind === 'refused' && refused.error).toBeInstanceOf(AccountDeletionScheduledError);
    const on = world({ state: { ...open, second_factor_enabled: true } });
    await on.tokens.afterPasskey(
      'u1',
      'phone',
      async () => true,
      async () => 'event',
    );
    expect(on.log).toEqual([
      'state u1 share in trx',
      'clear failures u1 in trx',
      'issue u1 phone passkey in trx',
    ]);
  });
});
