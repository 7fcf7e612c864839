import {
  Reauthentication,
  type ReauthenticationDeps,
  type ReauthProof,
  type SecondFactorCheck,
} from '../../src/account/reauth/service.js';
import type { UserRow } from '../../src/db/schema.js';
import { TooManyRequestsError, ValidationError } from '../../src/errors.js';
import type { PasswordHasher } from '../../src/lib/passwords.js';
import type { RateCounter } from '../../src/limits/rate-counter.js';
import type { ProviderAccountsRepo } from '../../src/modules/providers/repo.js';
import type { ProviderVerifier } from '../../src/providers/verifier.js';

/** How the fakes are set up for one test; everything they are asked goes to `log`, in order. */
export interface Setup {
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

export function world(setup: Setup = {}) {
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

export const proof = (extra: Partial<ReauthProof> = {}): ReauthProof => ({ credentials: [], ...extra });
export const counted = ['token consume reauth-token:t1', 'account consume current-password:u1'];
export const cleared = ['account reset current-password:u1', 'token reset reauth-token:t1'];
export const kept: string[] = [];
export const refunded = ['account refund current-password:u1', 'token refund reauth-token:t1'];
export const failures = (error: unknown) => (error instanceof ValidationError ? error.failures : error);
export const secondFactorNeeded = { code: [{ rule: 'reauth_second_factor' }] };

export async function refusal(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => 'passed',
    (error: unknown) => failures(error),
  );
}
