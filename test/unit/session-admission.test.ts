import { describe, expect, it } from 'vitest';
import {
  MAX_WRONG_CODES,
  refusalOf,
  SecondFactorLockedError,
  waitAfter,
} from '../../src/account/second-factor/guess-bound.js';
import { admission, type Credential, type GateState } from '../../src/account/sign-in/admission.js';
import {
  AccountDeletionScheduledError,
  AccountDisabledError,
  TooManyRequestsError,
} from '../../src/errors.js';

const open: GateState = { disabled_at: null, deletion_due_at: null, second_factor_enabled: false };
const due = new Date('2026-12-07T10:22:03.466Z');
const password: Credential = { factors: 1, purpose: 'sign_in' };
const passkey: Credential = { factors: 2, purpose: 'sign_in' };
const cancelLink: Credential = { factors: 1, purpose: 'deletion_cancel' };

describe('the session rule', () => {
  it('gives a session to an account with nothing in the way', () => {
    expect(admission(open, password)).toEqual({ kind: 'session' });
  });

  it('refuses a disabled account whatever proved it, before anything else', () => {
    const disabled = { ...open, disabled_at: new Date(), deletion_due_at: due, second_factor_enabled: true };
    for (const credential of [password, passkey, cancelLink]) {
      const answer = admission(disabled, credential);
      expect(answer.kind).toBe('refused');
      expect(answer.kind === 'refused' && answer.error).toBeInstanceOf(AccountDisabledError);
    }
  });

  it('refuses every sign-in during the grace period, a passkey too; only the cancel goes on', () => {
    const scheduled = { ...open, deletion_due_at: due };
    for (const credential of [password, passkey]) {
      const answer = admission(scheduled, credential);
      expect(answer.kind === 'refused' && answer.error).toBeInstanceOf(AccountDeletionScheduledError);
      expect(answer.kind === 'refused' && (answer.error as AccountDeletionScheduledError).scheduledFor).toBe(
        due,
      );
    }
    expect(admission(scheduled, cancelLink)).toEqual({ kind: 'session' });
  });

  it('asks one factor for the second, and lets two through', () => {
    const twoFactor = { ...open, second_factor_enabled: true };
    expect(admission(twoFactor, password)).toEqual({ kind: 'second_factor' });
    expect(admission({ ...twoFactor, deletion_due_at: due }, cancelLink)).toEqual({ kind: 'second_factor' });
    expect(admission(twoFactor, passkey)).toEqual({ kind: 'session' });
  });
});

describe('the bound on wrong second-factor codes', () => {
  const now = Date.parse('2026-11-27T12:00:00Z');
  const code = { kind: 'code', code: '123456' } as const;
  const recovery = { kind: 'recovery_code', code: 'k7dq2-xw4mz' } as const;
  const run = (failures: number, secondsAgo: number) => ({
    failed_attempts: failures,
    last_failed_at: new Date(now - secondsAgo * 1000),
  });

  it('waits nothing after five, then 30 s after the sixth, doubling up to an hour', () => {
    expect([0, 1, 4, 5].map(waitAfter)).toEqual([0, 0, 0, 0]);
    expect([6, 7, 8, 9].map(waitAfter)).toEqual([30_000, 60_000, 120_000, 240_000]);
    expect(waitAfter(12)).toBe(1_920_000);
    expect(waitAfter(13)).toBe(3_600_000);
    expect(waitAfter(99)).toBe(3_600_000);
    expect(waitAfter(10_000)).toBe(3_600_000);
  });

  it('refuses a code inside the wait with the seconds left, and checks it after', () => {
    const refusal = refusalOf(run(6, 10), code, now);
    expect(refusal?.kind === 'refused' && refusal.error).toBeInstanceOf(TooManyRequestsError);
    expect(refusal?.kind === 'refused' && (refusal.error as TooManyRequestsError).retryAfterSeconds).toBe(20);
    expect(refusalOf(run(6, 30), code, now)).toBeUndefined();
    expect(refusalOf(run(5, 0), code, now)).toBeUndefined();
    expect(refusalOf({ failed_attempts: 0, last_failed_at: null }, code, now)).toBeUndefined();
  });

  it('locks the authenticator at 100 however long ago, but still checks a recovery code after the wait', () => {
    const locked = refusalOf(run(MAX_WRONG_CODES, 86_400), code, now);
    expect(locked?.kind === 'refused' && locked.error).toBeInstanceOf(SecondFactorLockedError);
    expect(refusalOf(run(MAX_WRONG_CODES, 86_400), recovery, now)).toBeUndefined();
    const waiting = refusalOf(run(MAX_WRONG_CODES, 60), recovery, now);
    expect(waiting?.kind === 'refused' && waiting.error).toBeInstanceOf(TooManyRequestsError);
  });
});
