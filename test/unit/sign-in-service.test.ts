import { describe, expect, it } from 'vitest';
import type { SignInOutcome } from '../../src/account/sign-in/admission.js';
import { SignIn, type SignInDeps } from '../../src/account/sign-in/service.js';
import type { UserWithProviders } from '../../src/db/schema.js';
import {
  AccountDisabledError,
  InvalidCredentialsError,
  NotRegisteredError,
  TooManyRequestsError,
} from '../../src/errors.js';
import { accountKey, attemptKey, type RateCounter } from '../../src/limits/rate-counter.js';

type Gate =
  | { kind: 'session' }
  | { kind: 'second_factor'; challenge: string }
  | { kind: 'refused'; error: Error };
type Issue =
  | { kind: 'issued'; token: { id: string; token: string }; alongside?: unknown }
  | { kind: string; error?: Error };

interface Setup {
  /** The accounts by email, as the repo reads them (in turn, when a list). */
  accounts?: (UserWithProviders | undefined)[];
  password?: string;
  gate?: Gate;
  afterPassword?: Issue[];
  afterProvider?: Issue;
  verify?: () => Promise<void>;
  holder?: UserWithProviders | undefined;
  /** The account a presented device token was issued to. */
  deviceOwner?: string;
  full?: 'pair' | 'account';
}

const user = (id = 'u1', hash: string | null = '$argon2id$h') =>
  ({
    id,
    email: 'mina@example.com',
    password_hash: hash,
    linked_providers: ['kakao'],
  }) as unknown as UserWithProviders;
const client = { userAgent: 'phone', ip: '203.0.113.9', deviceToken: 'device' };
const pair = attemptKey('email:mina@example.com', client.ip);
const perAccount = accountKey('email:mina@example.com');

function world(setup: Setup = {}) {
  const log: string[] = [];
  const accounts = [...(setup.accounts ?? [user()])];
  const afterPassword = [
    ...(setup.afterPassword ?? [{ kind: 'issued', token: { id: 'k1', token: 'secret' } }]),
  ];
  const counter = (name: string): RateCounter => ({
    consume: async (key) => {
      log.push(`${name} consume ${key}`);
      if (setup.full === name) throw new TooManyRequestsError(9);
    },
    refund: async (key) => void log.push(`${name} refund ${key}`),
    reset: async (key) => void log.push(`${name} reset ${key}`),
  });
  const next = () => (accounts.length > 1 ? accounts.shift() : accounts[0]);
  const deps = {
    usersRepo: {
      findWithProvidersByEmail: async (email: string) => {
        log.push(`find ${email}`);
        return next();
      },
      findByEmail: async (email: string) => {
        log.push(`find row ${email}`);
        return accounts[0];
      },
    },
    users: {
      view: async (account: UserWithProviders, linked?: string[]) => {
        log.push(`view ${account.id} ${linked}`);
        return { id: account.id };
      },
    },
    tokens: {
      issuedTo: async (token: string) => {
        log.push(`issued to? ${token}`);
        return setup.deviceOwner;
      },
      revoke: async (tokenId: string) => void log.push(`revoke ${tokenId}`),
    },
    providers: {
      verify: async (credentials: { provider: string }) => {
        log.push(`verify ${credentials.provider}`);
        await (setup.verify ?? (async () => {}))();
      },
      userOfIdentity: async () => {
        log.push('holder');
        return 'holder' in setup ? setup.holder : user();
      },
    },
    hasher: {
      verify: async (hash: string, password: string) => {
        log.push(`check ${hash} ${password}`);
        return password === (setup.password ?? 'right');
      },
      verifyNothing: async (password: string) => {
        log.push(`check nothing ${password}`);
        return false;
      },
    },
    limits: { loginFailures: counter('pair'), accountFailures: counter('account') },
    gate: {
      admit: async (account: { id: string }, first: unknown, credential: unknown) => {
        log.push(`admit ${account.id} ${JSON.stringify(first)} ${JSON.stringify(credential)}`);
        return setup.gate ?? { kind: 'session' };
      },
    },
    sessionTokens: {
      afterPassword: async (userId: string, hash: string, password: string, name: string) => {
        log.push(`after password ${userId} ${hash} ${password} ${name}`);
        return afterPassword.length > 1 ? afterPassword.shift() : afterPassword[0];
      },
      afterProvider: async (userId: string, name: string, alongside: (trx: unknown) => Promise<unknown>) => {
        log.push(`after provider ${userId} ${name}`);
        const issue = setup.afterProvider ?? { kind: 'issued', token: { id: 'k2', token: 'psecret' } };
        return issue.kind === 'issued' ? { ...issue, alongside: await alongside('trx') } : issue;
      },
    },
    activity: {
      recordSignIn: async (
        event: { user: { id: string }; method: string; knownDevice: boolean },
        trx?: unknown,
      ) => {
        log.push(`signed in ${event.user.id} ${event.method} known=${event.knownDevice} ${trx ?? ''}`.trim());
        return 'alert';
      },
      recordFailedSignIn: async (userId: string, method: string) =>
        void log.push(`failed ${userId} ${method}`),
      send: (alert: unknown) => void log.push(`send ${alert}`),
    },
  };
  return { signIn: new SignIn(deps as unknown as SignInDeps), log };
}

const session = (token: string): SignInOutcome =>
  ({ kind: 'session', signedIn: { user: { id: 'u1', api_token: token } } }) as unknown as SignInOutcome;
const emailFirst = (known: boolean) => `{"method":"email","knownDevice":${known}}`;
const oneFactor = '{"factors":1,"purpose":"sign_in"}';
const errorOf = (outcome: SignInOutcome) => (outcome.kind === 'refused' ? outcome.error : outcome);

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
});

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
