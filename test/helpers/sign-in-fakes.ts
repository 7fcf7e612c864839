import type { SignInOutcome } from '../../src/account/sign-in/admission.js';
import { SignIn, type SignInDeps } from '../../src/account/sign-in/service.js';
import type { UserWithProviders } from '../../src/db/schema.js';
import { TooManyRequestsError } from '../../src/errors.js';
import { accountKey, attemptKey, type RateCounter } from '../../src/limits/rate-counter.js';

export type Gate =
  | { kind: 'session' }
  | { kind: 'second_factor'; challenge: string }
  | { kind: 'refused'; error: Error };
export type Issue =
  | { kind: 'issued'; token: { id: string; token: string }; alongside?: unknown }
  | { kind: string; error?: Error };

export interface Setup {
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
  /** What a check against no hash answers (a sound hasher: never a match). */
  nothingMatches?: boolean;
}

export const user = (id = 'u1', hash: string | null = '$argon2id$h') =>
  ({
    id,
    email: 'mina@example.com',
    password_hash: hash,
    linked_providers: ['kakao'],
  }) as unknown as UserWithProviders;
export const client = { userAgent: 'phone', ip: '203.0.113.9', deviceToken: 'device' };
export const pair = attemptKey('email:mina@example.com', client.ip);
export const perAccount = accountKey('email:mina@example.com');

export function world(setup: Setup = {}) {
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
        return setup.nothingMatches ?? false;
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

export const session = (token: string): SignInOutcome =>
  ({ kind: 'session', signedIn: { user: { id: 'u1', api_token: token } } }) as unknown as SignInOutcome;
export const emailFirst = (known: boolean) => `{"method":"email","knownDevice":${known}}`;
export const oneFactor = '{"factors":1,"purpose":"sign_in"}';
export const errorOf = (outcome: SignInOutcome) => (outcome.kind === 'refused' ? outcome.error : outcome);
