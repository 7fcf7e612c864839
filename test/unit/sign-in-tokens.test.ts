import { describe, expect, it } from 'vitest';
import {
  AccountDeletionScheduledError,
  AccountDisabledError,
  InvalidCredentialsError,
} from '../../src/errors.js';
import { due, open, password, world } from '../helpers/sign-in-gate-fakes.js';

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
