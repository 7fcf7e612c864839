import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import type { DatabaseHandle } from '../../src/db/client.js';
import { bearer, type RegisteredUser, registerUser, unique } from './factories.js';
import { expectOk, postForm } from './http.js';
import { latestToken } from './mail.js';
import type { FakePortOne } from './portone.js';

/** A birth date `years` ago (give or take the day: a child of 10 is under 14 whatever today is). */
export function bornYearsAgo(years: number): string {
  return `${new Date().getUTCFullYear() - years}-01-01`;
}

/** A child of about 10, signed up by email: the account waits for a guardian's consent. */
export function registerChild(app: FastifyInstance): Promise<RegisteredUser> {
  return registerUser(app, { birth_date: bornYearsAgo(10) });
}

/** The child asks `guardian` (a fresh address unless given); the token of the link mailed there. */
export async function askGuardian(
  app: FastifyInstance,
  handle: DatabaseHandle,
  child: RegisteredUser,
  guardian = `guardian${unique()}@example.com`,
): Promise<{ guardian: string; token: string }> {
  expectOk(
    await postForm(app, '/v1/user/guardian/request', { guardian_email: guardian }, bearer(child.token)),
  );
  return { guardian, token: await latestToken(handle, guardian, 'guardian_consent_request') };
}

type Check = (
  operation: string,
  call: () => Promise<LightMyRequestResponse>,
) => Promise<Record<string, unknown>>;

/**
 * The guardian's operations, each called once for real (responses.test.ts): a child asks, the guardian's
 * page reads the link, verifies the guardian through (the fake) PortOne, consents, and withdraws.
 */
export async function checkGuardianOperations(
  app: FastifyInstance,
  handle: DatabaseHandle,
  check: Check,
  portone: FakePortOne,
): Promise<void> {
  const child = await registerChild(app);
  const guardian = `guardian${unique()}@example.com`;
  const body = { guardian_email: guardian };
  await check('POST /user/guardian/request', () =>
    postForm(app, '/v1/user/guardian/request', body, bearer(child.token)),
  );
  const token = await latestToken(handle, guardian, 'guardian_consent_request');
  await check('GET /guardian/consent', () => app.inject({ url: `/v1/guardian/consent?token=${token}` }));
  const started = await check('POST /guardian/identity/start', () =>
    postForm(app, '/v1/guardian/identity/start', { token }),
  );
  const verification = String(started.identity_verification_id);
  const parent = portone.person({ birthDate: bornYearsAgo(40) });
  portone.script(verification, 'VERIFIED', parent);
  await check('POST /guardian/consent', () =>
    postForm(app, '/v1/guardian/consent', { token, agree: 'true', identity_verification_id: verification }),
  );
  // Withdrawn by the guardian who consented, verified again for the withdrawal's link.
  const withdraw = await latestToken(handle, guardian, 'guardian_consent_granted');
  const again = await postForm(app, '/v1/guardian/identity/start', { token: withdraw });
  const id = String(again.json().data.identity_verification_id);
  portone.script(id, 'VERIFIED', parent);
  await check('POST /guardian/withdraw', () =>
    postForm(app, '/v1/guardian/withdraw', { token: withdraw, identity_verification_id: id }),
  );
}
