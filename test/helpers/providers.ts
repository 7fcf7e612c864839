import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import { unique } from './factories.js';
import { expectError, postForm } from './http.js';

export const AUTHENTICATION_FAILED = [
  401,
  'Unauthorized',
  'The login credentials are invalid.',
  { status: 'authentication_failed' },
] as const;
export const NOT_REGISTERED = [
  401,
  'Unauthorized',
  'No account is linked to this identity.',
  { status: 'not_registered' },
] as const;
export const PROVIDER_UNAVAILABLE = [
  502,
  'BadGatewayHttpException',
  'Identity provider unavailable.',
] as const;

export function expectAuthenticationFailed(res: LightMyRequestResponse): void {
  expectError(res, ...AUTHENTICATION_FAILED);
}

export function expectNotRegistered(res: LightMyRequestResponse): void {
  expectError(res, ...NOT_REGISTERED);
}

export function expectProviderUnavailable(res: LightMyRequestResponse): void {
  expectError(res, ...PROVIDER_UNAVAILABLE);
}

/** The fields of a sign-up with `provider`, for a fresh email and username. */
export function providerSignUp(
  provider: string,
  providerUserId: string,
  accessToken: string,
  overrides: Record<string, string> = {},
): Record<string, string> & { type: string; email: string } {
  const id = unique();
  return {
    type: provider,
    email: `social${id}@example.com`,
    username: `social${id}`,
    gender: '0',
    user_agreement: 'on',
    [`${provider}_user_id`]: providerUserId,
    [`${provider}_access_token`]: accessToken,
    ...overrides,
  };
}

export function providerLogin(
  app: FastifyInstance,
  provider: string,
  providerUserId: string,
  accessToken: string,
): Promise<LightMyRequestResponse> {
  return postForm(app, `/v1/auth/login/${provider}`, {
    [`${provider}_user_id`]: providerUserId,
    [`${provider}_access_token`]: accessToken,
  });
}

/** Asserts that no account holds this email (a refused sign-up wrote nothing). */
export async function expectNoAccount(app: FastifyInstance, email: string): Promise<void> {
  const res = await postForm(app, '/v1/validate/email', { email });
  expect(res.statusCode).toBe(200);
}
