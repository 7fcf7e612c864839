import { type AnyEndpoint, type AuthContext, endpoint } from '../../http/endpoint.js';
import { type Static, t } from '../../http/response-schema.js';
import type { Locale } from '../../validation/messages.js';
import { preferredLocale } from '../../validation/messages.js';
import { rules } from '../../validation/rule-list.js';
import type { UsersService } from './service.js';
import { userExample, userShape } from './view.js';

/** A required document whose current version the user has not agreed to. */
const pendingConsentShape = t.object({
  key: t.string(),
  version: t.integer(),
  title: t.string(),
  url: t.string(),
});
type PendingConsent = Static<typeof pendingConsentShape>;

/**
 * Where user/get learns what the user has yet to agree to: the consents module answers from the versions the
 * account agreed to (its row, read with the token) and the current versions and titles it holds in memory.
 */
export type PendingConsents = (auth: AuthContext, locale: Locale) => Promise<PendingConsent[]>;

/** user/get's own user object: the profile and the required documents the user has yet to agree to. */
const ownUserResponse = t.object({
  user: t.extend(userShape, { pending_consents: t.array(pendingConsentShape) }),
});

export function userEndpoints(users: UsersService, pendingConsents: PendingConsents): AnyEndpoint[] {
  return [
    endpoint({
      method: 'GET',
      path: '/user/get',
      summary: 'The signed-in user',
      description:
        '`pending_consents`: required documents whose current version the user has not agreed to (empty ' +
        'when none), in the request’s language; the user agrees with user/consents/update.',
      tag: 'user',
      auth: 'required',
      rules: rules({}),
      response: ownUserResponse,
      example: { user: { ...userExample, pending_consents: [] } },
      handle: async ({ auth, request }) => {
        const [view, pending] = await Promise.all([
          users.view(auth.user, auth.linkedProviders),
          pendingConsents(auth, preferredLocale(request.headers['accept-language'])),
        ]);
        return { user: { ...view, pending_consents: pending } };
      },
    }),
  ];
}
