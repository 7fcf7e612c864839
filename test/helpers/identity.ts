import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { bearer, type RegisteredUser, registerUser } from './factories.js';
import { expectOk, postForm } from './http.js';
import type { FakePerson, FakePortOne } from './portone.js';

/** The 422 messages on identity_verification_id, and the other refusals of identity/verify. */
export const FIELD = 'identity_verification_id';
export const INVALID = ['The selected identity verification id is invalid.'];
export const USED = ['The identity verification id has already been used.'];
export const EXPIRED = ['The identity verification id has expired. Start a new verification.'];
export const NOT_VERIFIED = ['The identity verification did not succeed.'];
export const IMPLAUSIBLE_BIRTH_DATE = [
  'The identity verification gives a birth date that cannot be right (before 1900, after today or no date).',
];
export const FUTURE_TIME = ['The identity verification gives a verification time in the future.'];
export const SERVICE_UNAVAILABLE = [503, 'ServiceUnavailableHttpException', 'Service Unavailable'] as const;
export const IDENTITY_IN_USE = [
  409,
  'ConflictHttpException',
  'This person already has an account.',
  { status: 'identity_in_use' },
] as const;

/** A birth date `years` years ago today (UTC date; the tests keep well away from the birthday itself). */
export const yearsAgo = (years: number) => {
  const date = new Date(Date.now() - 40 * 86_400_000);
  date.setUTCFullYear(date.getUTCFullYear() - years);
  return date.toISOString().slice(0, 10);
};

/**
 * The identity routes as a test drives them, on an app pointed at `fake`: every answer is kept in
 * `answers` (a suite then checks that no CI or phone number ever reached one).
 */
export function identityFlows(app: () => FastifyInstance, fake: () => FakePortOne) {
  const answers: string[] = [];
  const recorded = (res: LightMyRequestResponse) => {
    answers.push(res.body);
    return res;
  };
  const start = async (user: RegisteredUser): Promise<string> =>
    expectOk<{ identity_verification_id: string }>(
      recorded(await postForm(app(), '/v1/user/identity/start', {}, bearer(user.token))),
    ).identity_verification_id;
  const verify = async (user: RegisteredUser, id: string) =>
    recorded(
      await postForm(app(), '/v1/user/identity/verify', { identity_verification_id: id }, bearer(user.token)),
    );
  const userGet = async (user: RegisteredUser) =>
    expectOk<{ user: Record<string, unknown> }>(
      recorded(await app().inject({ method: 'GET', url: '/v1/user/get', headers: bearer(user.token) })),
    ).user;
  /** A new account, verified as `person` (the answer is the verify's). */
  const verifiedAs = async (person: FakePerson) => {
    const user = await registerUser(app());
    const id = await start(user);
    fake().script(id, 'VERIFIED', person);
    return { user, id, res: await verify(user, id) };
  };
  return { answers, recorded, start, verify, userGet, verifiedAs };
}

/** identity/start and identity/verify, each once through `check` (responses.test.ts), for `user`. */
export async function checkIdentityOperations(
  app: FastifyInstance,
  fake: FakePortOne,
  check: (operation: string, call: () => Promise<LightMyRequestResponse>) => Promise<Record<string, unknown>>,
  user: { token: string },
): Promise<void> {
  const post = (url: string, body: Record<string, string>) => () =>
    postForm(app, `/v1${url}`, body, bearer(user.token));
  const started = await check('POST /user/identity/start', post('/user/identity/start', {}));
  const id = started.identity_verification_id as string;
  fake.script(id, 'VERIFIED', fake.person());
  await check('POST /user/identity/verify', post('/user/identity/verify', { identity_verification_id: id }));
}
