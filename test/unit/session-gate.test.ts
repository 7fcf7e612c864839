import { describe, expect, it } from 'vitest';
import { AccountDeletionScheduledError, AccountDisabledError } from '../../src/errors.js';
import { hashApiToken } from '../../src/lib/tokens.js';
import { account, due, email, open, password, world } from '../helpers/sign-in-gate-fakes.js';

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
