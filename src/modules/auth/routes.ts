import type { FastifyRequest } from 'fastify';
import { type AnyEndpoint, endpoint, presentedToken } from '../../http/endpoint.js';
import { t } from '../../http/response-schema.js';
import type { RateCounter } from '../../limits/rate-counter.js';
import { rules } from '../../validation/fields.js';
import { preferredLocale } from '../../validation/messages.js';
import { signedInExample, signedInResponse } from '../users/view.js';
import { type AccountByEmail, loginEmailRules, type RegisterRuleOptions, registerRules } from './rules.js';
import type { AuthService, ClientInfo } from './service.js';

function clientInfo(request: FastifyRequest): ClientInfo {
  return {
    userAgent: request.headers['user-agent'],
    ip: request.ip,
    // A login may present the device's previous api_token (as any request presents one): see docs/SECURITY.md.
    deviceToken: presentedToken(request),
    locale: preferredLocale(request.headers['accept-language']),
  };
}

/** Per-IP limits of the public auth routes (the per-account login failures are counted by the service). */
export interface AuthLimits {
  register: RateCounter;
  login: RateCounter;
}

export function authEndpoints(
  auth: AuthService,
  options: RegisterRuleOptions,
  limits: AuthLimits,
  /** The login's email rule hands on the account this finds. */
  accountByEmail: AccountByEmail,
): AnyEndpoint[] {
  return [
    endpoint({
      method: 'POST',
      path: '/auth/register',
      summary: 'Register by email and password, or through an identity provider',
      tag: 'auth',
      auth: 'none',
      limit: limits.register,
      errors: [429, 502],
      rules: registerRules(options),
      response: signedInResponse,
      example: signedInExample,
      handle: ({ params, request }) => auth.register(params, clientInfo(request)),
    }),
    endpoint({
      method: 'POST',
      path: '/auth/login/email',
      summary: 'Log in by email and password',
      description: 'Every login issues a new token (one per device).',
      tag: 'auth',
      auth: 'none',
      limit: limits.login,
      errors: [401, 429],
      rules: loginEmailRules(accountByEmail),
      response: signedInResponse,
      example: signedInExample,
      // The email rule hands on the account it found (its address as stored: the same lower-cased).
      handle: ({ params, request }) =>
        auth.loginWithEmail(params.email.email, params.password, clientInfo(request), params.email),
    }),
    endpoint({
      method: 'POST',
      path: '/auth/logout',
      summary: 'Revoke the presented token',
      tag: 'auth',
      auth: 'required',
      rules: rules({}),
      response: t.object({ status: t.literal('logged_out') }),
      example: { status: 'logged_out' },
      handle: async ({ auth: session }) => {
        await auth.logout(session);
        return { status: 'logged_out' as const };
      },
    }),
  ];
}
