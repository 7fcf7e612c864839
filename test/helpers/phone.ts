import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { bearer, type RegisteredUser } from './factories.js';
import { postForm } from './http.js';
import { type FakeSolapi, newMobile } from './solapi.js';

/**
 * The phone operations, each called once for the responses suite: a number added, verified by its texted
 * code, signed in with, removed. `sms` is the app's SMS sender (its sends are awaited before a code is read).
 */
export async function checkPhoneOperations(
  app: FastifyInstance,
  sms: { idle(): Promise<void> },
  solapi: FakeSolapi,
  check: (operation: string, call: () => Promise<LightMyRequestResponse>) => Promise<Record<string, unknown>>,
  user: RegisteredUser,
): Promise<void> {
  const phone = newMobile();
  const post = (url: string, body: Record<string, string>, token?: string) => () =>
    postForm(app, `/v1${url}`, body, token ? bearer(token) : {});
  const codeTexted = async () => {
    await sms.idle();
    return solapi.codeFor(phone.national);
  };
  const { password, token } = user;
  await check(
    'POST /user/phone',
    post('/user/phone', { phone: phone.typed, current_password: password }, token),
  );
  await check('POST /user/phone/verify', post('/user/phone/verify', { code: await codeTexted() }, token));
  await check('POST /auth/phone-code', post('/auth/phone-code', { phone: phone.typed }));
  const code = await codeTexted();
  await check('POST /auth/phone-code/verify', post('/auth/phone-code/verify', { phone: phone.typed, code }));
  await check('POST /user/phone/remove', post('/user/phone/remove', { current_password: password }, token));
}
