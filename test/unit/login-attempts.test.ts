import { describe, expect, it } from 'vitest';
import { answered, refused, type SignInOutcome } from '../../src/account/sign-in/admission.js';
import { isFailedLogin, LoginAttempts } from '../../src/account/sign-in/login-attempts.js';
import {
  AccountDisabledError,
  InvalidCredentialsError,
  NotRegisteredError,
  SecondFactorRequiredError,
  TooManyRequestsError,
  ValidationError,
} from '../../src/errors.js';
import type { RateCounter } from '../../src/limits/rate-counter.js';
import type { SignedIn } from '../../src/modules/users/view.js';

/** Two counters that write down every hit, refund and reset; `full` refuses every hit on that counter. */
function counters(full?: 'pair' | 'account') {
  const log: string[] = [];
  const counter = (name: 'pair' | 'account'): RateCounter => ({
    consume: async (key) => {
      log.push(`${name} consume ${key}`);
      if (full === name) throw new TooManyRequestsError(42);
    },
    refund: async (key) => void log.push(`${name} refund ${key}`),
    reset: async (key) => void log.push(`${name} reset ${key}`),
  });
  return { log, limits: { loginFailures: counter('pair'), accountFailures: counter('account') } };
}

const signedIn = { user: { id: 'u1' } } as unknown as SignedIn;
const session: SignInOutcome = { kind: 'session', signedIn };
const keys = { pair: 'p1', account: async () => 'a1' };
const both = ['pair consume p1', 'account consume a1'];

describe('LoginAttempts', () => {
  it('counts the hits before the attempt and clears both keys on a session', async () => {
    const { log, limits } = counters();
    const attempts = new LoginAttempts(limits);
    const outcome = await attempts.run(keys, async () => {
      log.push('attempt');
      return session;
    });
    expect(outcome).toBe(session);
    expect(log).toEqual([...both, 'attempt', 'pair reset p1', 'account reset a1']);
  });

  it('keeps the hits of a wrong password and of an unknown email', async () => {
    for (const error of [new InvalidCredentialsError(), ValidationError.notFound('email')]) {
      const { log, limits } = counters();
      const outcome = await new LoginAttempts(limits).run(keys, async () => refused(error));
      expect(outcome).toEqual({ kind: 'refused', error });
      expect(log).toEqual(both);
    }
  });

  it('gives the hits back for the second-factor step and for a refusal the credential was right for', async () => {
    const outcomes: SignInOutcome[] = [
      { kind: 'second_factor', challenge: 'c' },
      refused(new AccountDisabledError()),
    ];
    for (const outcome of outcomes) {
      const { log, limits } = counters();
      expect(await new LoginAttempts(limits).run(keys, async () => outcome)).toBe(outcome);
      expect(log).toEqual([...both, 'pair refund p1', 'account refund a1']);
    }
  });

  it('lets the caller say what a failure is', async () => {
    const { log, limits } = counters();
    const wrong = new NotRegisteredError();
    const isFailure = (error: unknown) => error instanceof NotRegisteredError;
    expect(await new LoginAttempts(limits).run(keys, async () => refused(wrong), isFailure)).toEqual(
      refused(wrong),
    );
    expect(log).toEqual(both);
    const other = counters();
    const invalid = new InvalidCredentialsError();
    await new LoginAttempts(other.limits).run(keys, async () => refused(invalid), isFailure);
    expect(other.log).toEqual([...both, 'pair refund p1', 'account refund a1']);
  });

  it('gives the hits back for the second-factor step whatever the caller counts as a failure', async () => {
    const { log, limits } = counters();
    const step: SignInOutcome = { kind: 'second_factor', challenge: 'c' };
    expect(
      await new LoginAttempts(limits).run(
        keys,
        async () => step,
        () => true,
      ),
    ).toBe(step);
    expect(log).toEqual([...both, 'pair refund p1', 'account refund a1']);
  });

  it('gives the hits back and throws on a fault', async () => {
    const { log, limits } = counters();
    const fault = new Error('database down');
    const run = new LoginAttempts(limits).run(keys, async () => Promise.reject(fault));
    await expect(run).rejects.toBe(fault);
    expect(log).toEqual([...both, 'pair refund p1', 'account refund a1']);
  });

  it('answers 429 for a pair over its limit, before asking for the account key or trying', async () => {
    const { log, limits } = counters('pair');
    let asked = false;
    const outcome = await new LoginAttempts(limits).run(
      {
        pair: 'p1',
        account: async () => {
          asked = true;
          return 'a1';
        },
      },
      async () => session,
    );
    expect(outcome.kind === 'refused' && outcome.error).toEqual(new TooManyRequestsError(42));
    expect(asked).toBe(false);
    expect(log).toEqual(['pair consume p1']);
  });

  it('gives the pair’s hit back when the account is over its limit', async () => {
    const { log, limits } = counters('account');
    const outcome = await new LoginAttempts(limits).run(keys, async () => session);
    expect(outcome.kind === 'refused' && outcome.error).toBeInstanceOf(TooManyRequestsError);
    expect(log).toEqual([...both, 'pair refund p1']);
  });

  it('counts no account for a known device, and no pair when none is given', async () => {
    const known = counters();
    await new LoginAttempts(known.limits).run(
      { pair: 'p1', account: async () => undefined },
      async () => session,
    );
    expect(known.log).toEqual(['pair consume p1', 'pair reset p1']);
    const accountOnly = counters();
    await new LoginAttempts(accountOnly.limits).run({ account: async () => 'a1' }, async () => session);
    expect(accountOnly.log).toEqual(['account consume a1', 'account reset a1']);
  });

  it('counts nothing per account without a per-account counter', async () => {
    const { log, limits } = counters();
    await new LoginAttempts({ loginFailures: limits.loginFailures }).run(keys, async () => session);
    expect(log).toEqual(['pair consume p1', 'pair reset p1']);
  });
});

describe('isFailedLogin and answered', () => {
  it('counts a wrong credential and a 422 as failed logins, nothing else', () => {
    expect(isFailedLogin(new InvalidCredentialsError())).toBe(true);
    expect(isFailedLogin(ValidationError.notFound('email'))).toBe(true);
    expect(isFailedLogin(new AccountDisabledError())).toBe(false);
  });

  it('answers the session’s data, the second factor’s 401 with its challenge, or the refusal', () => {
    expect(answered(session)).toBe(signedIn);
    let thrown: unknown;
    try {
      answered({ kind: 'second_factor', challenge: 'c1' });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(SecondFactorRequiredError);
    expect((thrown as SecondFactorRequiredError).challenge).toBe('c1');
    const error = new AccountDisabledError();
    expect(() => answered(refused(error))).toThrow(error);
  });
});
