import { describe, expect, it } from 'vitest';
import { TooManyRequestsError, ValidationError } from '../../src/errors.js';
import {
  cleared,
  counted,
  kept,
  proof,
  refunded,
  refusal,
  secondFactorNeeded,
  world,
} from '../helpers/reauth-fakes.js';

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
