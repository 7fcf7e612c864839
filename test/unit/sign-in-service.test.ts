import { describe, expect, it } from 'vitest';
import type { SignInOutcome } from '../../src/account/sign-in/admission.js';
import { AccountDisabledError, InvalidCredentialsError, TooManyRequestsError } from '../../src/errors.js';
import {
  client,
  emailFirst,
  errorOf,
  oneFactor,
  pair,
  perAccount,
  session,
  user,
  world,
} from '../helpers/sign-in-fakes.js';

describe('SignIn.login', () => {
  it('signs in with the right password: counted per pair and account, then both cleared', async () => {
    const { signIn, log } = world();
    expect(await signIn.login('Mina@Example.com', 'right', client)).toEqual(session('secret'));
    expect(log).toEqual([
      `pair consume ${pair}`,
      'issued to? device',
      `account consume ${perAccount}`,
      'find Mina@Example.com',
      'check $argon2id$h right',
      `admit u1 ${emailFirst(false)} ${oneFactor}`,
      'after password u1 $argon2id$h right phone',
      'signed in u1 email known=false',
      'view u1 kakao',
      `pair reset ${pair}`,
      `account reset ${perAccount}`,
    ]);
  });

  it('lets a device of record past the account’s counter, reading the account it was given', async () => {
    const { signIn, log } = world({ deviceOwner: 'u1' });
    expect(await signIn.login('mina@example.com', 'right', client, user())).toEqual(session('secret'));
    expect(log.slice(0, 5)).toEqual([
      `pair consume ${pair}`,
      'issued to? device',
      'check $argon2id$h right',
      `admit u1 ${emailFirst(true)} ${oneFactor}`,
      'after password u1 $argon2id$h right phone',
    ]);
    expect(log).toContain('signed in u1 email known=true');
  });

  it('reads the account by email to know a device when none was given; another’s token is no device', async () => {
    const known = world({ deviceOwner: 'u1' });
    await known.signIn.login('mina@example.com', 'right', client);
    expect(known.log.slice(0, 3)).toEqual([
      `pair consume ${pair}`,
      'issued to? device',
      'find row mina@example.com',
    ]);
    expect(known.log).not.toContain(`account consume ${perAccount}`);
    const other = world({ deviceOwner: 'u2' });
    await other.signIn.login('mina@example.com', 'right', client);
    expect(other.log).toContain(`account consume ${perAccount}`);
    const none = world({ deviceOwner: 'u1' });
    await none.signIn.login('mina@example.com', 'right', { ...client, deviceToken: undefined });
    expect(none.log.slice(0, 2)).toEqual([`pair consume ${pair}`, `account consume ${perAccount}`]);
  });

  it('refuses a wrong password with the 401, logs the failure and keeps the hits', async () => {
    const { signIn, log } = world();
    const outcome = await signIn.login('mina@example.com', 'wrong', client);
    expect(errorOf(outcome)).toEqual(new InvalidCredentialsError());
    expect(log.slice(-2)).toEqual(['check $argon2id$h wrong', 'failed u1 email']);
  });

  it('spends a check on an account without a password, and refuses it alike', async () => {
    const { signIn, log } = world({ accounts: [user('u1', null)] });
    const outcome = await signIn.login('mina@example.com', 'right', client);
    expect(errorOf(outcome)).toEqual(new InvalidCredentialsError());
    expect(log.slice(-2)).toEqual(['check nothing right', 'failed u1 email']);
  });

  it('answers the 422 for an unknown email, counted', async () => {
    const { signIn, log } = world({ accounts: [undefined] });
    const outcome = await signIn.login('mina@example.com', 'right', client);
    expect(outcome.kind === 'refused' && outcome.error).toMatchObject({
      failures: { email: [{ rule: 'exists' }] },
    });
    expect(log.at(-1)).toBe('find mina@example.com');
  });

  it('hands on the second factor’s challenge and the gate’s refusal, giving the hits back', async () => {
    const challenge = world({ gate: { kind: 'second_factor', challenge: 'c1' } });
    expect(await challenge.signIn.login('mina@example.com', 'right', client)).toEqual({
      kind: 'second_factor',
      challenge: 'c1',
    });
    expect(challenge.log.slice(-2)).toEqual([`pair refund ${pair}`, `account refund ${perAccount}`]);
    const disabled = new AccountDisabledError();
    const refused = world({ gate: { kind: 'refused', error: disabled } });
    expect(await refused.signIn.login('mina@example.com', 'right', client)).toEqual({
      kind: 'refused',
      error: disabled,
    });
    expect(refused.log).not.toContain('after password u1 $argon2id$h right phone');
  });

  it('answers a refusal under the lock as it is', async () => {
    const disabled = new AccountDisabledError();
    const { signIn } = world({ afterPassword: [{ kind: 'refused', error: disabled }] });
    expect(await signIn.login('mina@example.com', 'right', client)).toEqual({
      kind: 'refused',
      error: disabled,
    });
  });

  it('checks once more against the hash as it is now when it changed meanwhile', async () => {
    const changed = { kind: 'password-changed' };
    const upgraded = world({
      accounts: [user(), user('u1', '$argon2id$new')],
      afterPassword: [changed, { kind: 'issued', token: { id: 'k3', token: 'again' } }],
    });
    expect(await upgraded.signIn.login('mina@example.com', 'right', client)).toEqual(session('again'));
    expect(upgraded.log).toContain('after password u1 $argon2id$new right phone');
    const twice = world({ afterPassword: [changed, changed] });
    const outcome = await twice.signIn.login('mina@example.com', 'right', client);
    expect(errorOf(outcome)).toEqual(new InvalidCredentialsError());
    expect(twice.log).toContain('failed u1 email');
    const gone = world({ accounts: [user(), undefined], afterPassword: [changed] });
    const goneOutcome = await gone.signIn.login('mina@example.com', 'right', client);
    expect(goneOutcome.kind === 'refused' && goneOutcome.error).toMatchObject({
      failures: { email: [{ rule: 'exists' }] },
    });
  });

  it('answers the 429 when the pair is over its limit, checking nothing', async () => {
    const { signIn, log } = world({ full: 'pair' });
    await expect(signIn.loginWithEmail('mina@example.com', 'right', client)).rejects.toEqual(
      new TooManyRequestsError(9),
    );
    expect(log).toEqual([`pair consume ${pair}`]);
  });
});

describe('SignIn.provePassword', () => {
  const then = async () => ({ kind: 'refused', error: new AccountDisabledError() }) as SignInOutcome;

  it('hands the account on once the password proved right; what it answers is no guess', async () => {
    const { signIn, log } = world();
    expect(errorOf(await signIn.provePassword('mina@example.com', 'right', client, then))).toEqual(
      new AccountDisabledError(),
    );
    expect(log.slice(-2)).toEqual([`pair refund ${pair}`, `account refund ${perAccount}`]);
  });

  it('counts an unknown email and a wrong password as guesses', async () => {
    const unknown = world({ accounts: [undefined] });
    const outcome = await unknown.signIn.provePassword('mina@example.com', 'right', client, then);
    expect(outcome.kind === 'refused' && outcome.error).toMatchObject({
      failures: { email: [{ rule: 'exists' }] },
    });
    expect(unknown.log.at(-1)).toBe('find mina@example.com');
    const wrong = world();
    expect(errorOf(await wrong.signIn.provePassword('mina@example.com', 'wrong', client, then))).toEqual(
      new InvalidCredentialsError(),
    );
    expect(wrong.log.at(-1)).toBe('check $argon2id$h wrong');
  });

  it('tells `then` whether the client is a device of the account', async () => {
    const seen: boolean[] = [];
    const remember = async (_user: unknown, knownDevice: boolean) => {
      seen.push(knownDevice);
      return then();
    };
    await world({ deviceOwner: 'u1' }).signIn.provePassword('mina@example.com', 'right', client, remember);
    await world({ deviceOwner: 'u9' }).signIn.provePassword('mina@example.com', 'right', client, remember);
    expect(seen).toEqual([true, false]);
  });
});

describe('SignIn.login, what a hasher or a stranger’s device cannot change', () => {
  it('answers an unknown email with its 422 when the device token is another account’s', async () => {
    const { signIn, log } = world({ accounts: [undefined], deviceOwner: 'u9' });
    const outcome = await signIn.login('mina@example.com', 'right', client);
    expect(outcome.kind === 'refused' && outcome.error).toMatchObject({
      failures: { email: [{ rule: 'exists' }] },
    });
    expect(log).toContain('find row mina@example.com');
  });

  it('never signs in an account without a password, even when a check against no hash said yes', async () => {
    const { signIn, log } = world({ accounts: [user('u1', null)], nothingMatches: true });
    expect(errorOf(await signIn.login('mina@example.com', 'anything', client))).toEqual(
      new InvalidCredentialsError(),
    );
    expect(log.some((line) => line.startsWith('after password'))).toBe(false);
  });
});
