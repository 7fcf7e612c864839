import { describe, expect, it } from 'vitest';
import { AccountDisabledError, InvalidCredentialsError, NotRegisteredError } from '../../src/errors.js';
import { attemptKey } from '../../src/limits/rate-counter.js';
import { client, errorOf, oneFactor, session, user, world } from '../helpers/sign-in-fakes.js';

describe('SignIn.loginWithProvider', () => {
  const kakao = { provider: 'kakao', userId: 'k1', accessToken: 'tok' };
  const key = attemptKey('kakao:k1', client.ip);

  it('signs the identity’s holder in, its event written with the token and its alert sent after', async () => {
    const { signIn, log } = world({ deviceOwner: 'u1' });
    expect(await signIn.loginWithProvider(kakao, client)).toEqual(session('psecret'));
    expect(log).toEqual([
      `pair consume ${key}`,
      'verify kakao',
      'holder',
      'issued to? device',
      `admit u1 {"method":"kakao","knownDevice":true} ${oneFactor}`,
      'after provider u1 phone',
      'signed in u1 kakao known=true trx',
      'send alert',
      'view u1 undefined',
      `pair reset ${key}`,
    ]);
  });

  it('refuses a rejected token, logged for the identity’s holder and counted', async () => {
    const rejected = new InvalidCredentialsError();
    const held = world({ verify: async () => Promise.reject(rejected) });
    expect(await held.signIn.loginWithProvider(kakao, client)).toEqual({ kind: 'refused', error: rejected });
    expect(held.log).toEqual([`pair consume ${key}`, 'verify kakao', 'holder', 'failed u1 kakao']);
    const unheld = world({ verify: async () => Promise.reject(rejected), holder: undefined });
    await unheld.signIn.loginWithProvider(kakao, client);
    expect(unheld.log).toEqual([`pair consume ${key}`, 'verify kakao', 'holder']);
  });

  it('throws a provider fault, giving the hit back', async () => {
    const down = new Error('provider down');
    const { signIn, log } = world({ verify: async () => Promise.reject(down) });
    await expect(signIn.loginWithProvider(kakao, client)).rejects.toBe(down);
    expect(log).toEqual([`pair consume ${key}`, 'verify kakao', `pair refund ${key}`]);
  });

  it('answers not_registered for an identity without an account, not counted', async () => {
    const { signIn, log } = world({ holder: undefined });
    expect(errorOf(await signIn.loginWithProvider(kakao, client))).toEqual(new NotRegisteredError());
    expect(log.at(-1)).toBe(`pair refund ${key}`);
  });

  it('knows no device without a token', async () => {
    const { signIn, log } = world({ deviceOwner: 'u1' });
    await signIn.loginWithProvider(kakao, { ...client, deviceToken: undefined });
    expect(log).not.toContain('issued to? device');
    expect(log).toContain(`admit u1 {"method":"kakao","knownDevice":false} ${oneFactor}`);
  });

  it('hands on the gate’s answers and the lock’s refusal; an account gone is a wrong credential', async () => {
    const challenge = world({ gate: { kind: 'second_factor', challenge: 'c1' } });
    expect(await challenge.signIn.loginWithProvider(kakao, client)).toEqual({
      kind: 'second_factor',
      challenge: 'c1',
    });
    const disabled = new AccountDisabledError();
    const refused = world({ gate: { kind: 'refused', error: disabled } });
    expect(await refused.signIn.loginWithProvider(kakao, client)).toEqual({
      kind: 'refused',
      error: disabled,
    });
    expect(refused.log).not.toContain('after provider u1 phone');
    const locked = world({ afterProvider: { kind: 'refused', error: disabled } });
    expect(await locked.signIn.loginWithProvider(kakao, client)).toEqual({
      kind: 'refused',
      error: disabled,
    });
    const gone = world({ afterProvider: { kind: 'gone' } });
    expect(errorOf(await gone.signIn.loginWithProvider(kakao, client))).toEqual(
      new InvalidCredentialsError(),
    );
    expect(gone.log).not.toContain('send alert');
  });
});

describe('SignIn.logout', () => {
  it('revokes the presented token', async () => {
    const { signIn, log } = world();
    await signIn.logout({ user: user(), tokenId: 't1' });
    expect(log).toEqual(['revoke t1']);
  });
});
