import { SessionGate } from '../../src/account/sign-in/session-gate.js';
import { SignInTokens } from '../../src/account/sign-in/tokens.js';
import type { Executor } from '../../src/db/transaction.js';
import type { PasswordHasher } from '../../src/lib/passwords.js';
import type { ChallengesRepo } from '../../src/modules/second-factor/challenges-repo.js';
import type { SecondFactorRepo } from '../../src/modules/second-factor/repo.js';
import type { TokensService } from '../../src/modules/tokens/service.js';
import type { UsersRepo } from '../../src/modules/users/repo.js';

/** The row SignInTokens re-reads under a lock. */
export interface State {
  password_hash: string | null;
  disabled_at: Date | null;
  deletion_due_at: Date | null;
  second_factor_enabled: boolean;
}

export const open: State = {
  password_hash: '$argon2id$old',
  disabled_at: null,
  deletion_due_at: null,
  second_factor_enabled: false,
};
export const due = new Date('2026-12-07T10:00:00Z');

/** A database whose transaction hands `trx` to the work, and fakes that log what they are asked. */
export function world(options: {
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

export const account = { id: 'u1', disabled_at: null, deletion_due_at: null };
export const email = { method: 'email', knownDevice: true };
export const password = { factors: 1, purpose: 'sign_in' } as const;
