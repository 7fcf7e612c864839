import { type AnyEndpoint, endpoint } from '../../http/endpoint.js';
import { t } from '../../http/response-schema.js';
import type { RateCounter } from '../../limits/rate-counter.js';
import { string } from '../../validation/field-kinds.js';
import { rules } from '../../validation/rule-list.js';
import { emailField, newPasswordField, slugField, type UsersTaken, usernameField } from '../users/rules.js';

/**
 * Availability checks before sign-up. The same field rules as registration: a value these call valid is
 * one register accepts (unless someone takes it in between). They tell anyone which accounts exist (by
 * design), so they are what an attacker scripts first: one per-IP limit covers all four together
 * (the password check shares it, so it cannot be used to test a list of guesses faster than the others).
 * `taken`: the uniqueness questions, answered by the users service.
 */
export function validateEndpoints(limit: RateCounter, taken: UsersTaken): AnyEndpoint[] {
  return [
    endpoint({
      method: 'POST',
      path: '/validate/email',
      summary: 'Is this email acceptable and unused?',
      tag: 'validate',
      auth: 'none',
      readOnly: true,
      limit,
      errors: [429],
      rules: rules({ email: emailField.required().unique(taken.email, { name: 'users,email' }) }),
      response: t.object({ email: t.string(), status: t.literal('valid') }),
      example: { email: 'minji@example.com', status: 'valid' },
      handle: async ({ params }) => ({ email: params.email, status: 'valid' as const }),
    }),
    endpoint({
      method: 'POST',
      path: '/validate/username',
      summary: 'Is this username acceptable and unused?',
      tag: 'validate',
      auth: 'none',
      readOnly: true,
      limit,
      errors: [429],
      rules: rules({ username: usernameField.required().unique(taken.username, { name: 'users,username' }) }),
      response: t.object({ username: t.string(), status: t.literal('valid') }),
      example: { username: '민지', status: 'valid' },
      handle: async ({ params }) => ({ username: params.username, status: 'valid' as const }),
    }),
    endpoint({
      method: 'POST',
      path: '/validate/slug',
      summary: 'Is this slug acceptable and unused?',
      description: 'Errors are keyed by `slug`, the field that was sent.',
      tag: 'validate',
      auth: 'none',
      readOnly: true,
      limit,
      errors: [429],
      rules: rules({ slug: slugField.required().unique(taken.slug, { name: 'users,slug' }) }),
      response: t.object({ slug: t.string(), status: t.literal('valid') }),
      example: { slug: 'minji', status: 'valid' },
      handle: async ({ params }) => ({ slug: params.slug, status: 'valid' as const }),
    }),
    endpoint({
      method: 'POST',
      path: '/validate/password',
      summary: 'Would sign-up accept this password?',
      description:
        'The new-password rules of registration, reset and password change: 8 to 1024 characters, not on the ' +
        'common-password list and not the `email`, its local part or the `username` (sent only to be compared ' +
        'with; neither is checked nor looked up). The password is never echoed back.',
      tag: 'validate',
      auth: 'none',
      readOnly: true,
      limit,
      errors: [429],
      rules: rules({
        password: newPasswordField.required(),
        email: string()
          .max(255)
          .describe('The email the account will have; only compared with the password.'),
        username: string()
          .max(255)
          .describe('The username the account will have; only compared with the password.'),
      }),
      response: t.object({ status: t.literal('valid') }),
      example: { status: 'valid' },
      handle: async () => ({ status: 'valid' as const }),
    }),
  ];
}
