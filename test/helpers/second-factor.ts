import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import { bearer, type RegisteredUser } from './factories.js';
import { expectError, expectOk, postForm } from './http.js';
import { currentCode } from './totp.js';

export interface TotpSetup {
  secret: string;
  otpauth_url: string;
  qr_svg: string;
}

export interface TwoFactorUser extends RegisteredUser {
  secret: string;
  recoveryCodes: string[];
}

/**
 * Waits, when fewer than `margin` seconds are left of the current 30-second step, for the next one: a test that
 * computes codes for "this step" then must not see the step turn under it. Not a timed assertion: only a pause.
 */
export async function awayFromStepEdge(margin = 6): Promise<void> {
  const left = 30_000 - (Date.now() % 30_000);
  if (left < margin * 1000) await new Promise((resolve) => setTimeout(resolve, left + 50));
}

/** Sets up and enables TOTP for `user` with the code of the step before this one (this step's stays unused). */
export async function enableTotp(app: FastifyInstance, user: RegisteredUser): Promise<TwoFactorUser> {
  const setup = expectOk<TotpSetup>(
    await postForm(app, '/v1/user/2fa/totp/setup', { current_password: user.password }, bearer(user.token)),
  );
  const enabled = expectOk<{ recovery_codes: string[] }>(
    await postForm(
      app,
      '/v1/user/2fa/totp/enable',
      { code: currentCode(setup.secret, -1) },
      bearer(user.token),
    ),
  );
  return { ...user, secret: setup.secret, recoveryCodes: enabled.recovery_codes };
}

/** The login's 401 for an account with a second factor on; returns the challenge. */
export function expectSecondFactorRequired(res: LightMyRequestResponse): string {
  const challenge = (res.json() as { data?: { challenge?: unknown } }).data?.challenge;
  expect(typeof challenge).toBe('string');
  expect(challenge as string).toMatch(/^[\w-]{43}$/);
  expectError(res, 401, 'Unauthorized', 'A second factor is required.', {
    status: 'second_factor_required',
    challenge,
    methods: ['totp', 'recovery_code'],
  });
  return challenge as string;
}

export const loginByEmail = (app: FastifyInstance, user: { email: string; password: string }) =>
  postForm(app, '/v1/auth/login/email', { email: user.email, password: user.password });

export const secondFactor = (app: FastifyInstance, fields: Record<string, string>) =>
  postForm(app, '/v1/auth/login/second-factor', fields);
