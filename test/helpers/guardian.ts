import type { FastifyInstance } from 'fastify';
import type { DatabaseHandle } from '../../src/db/client.js';
import { bearer, type RegisteredUser, registerUser, unique } from './factories.js';
import { expectOk, postForm } from './http.js';
import { latestToken } from './mail.js';

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
