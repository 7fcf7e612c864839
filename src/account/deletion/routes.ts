import { type AnyEndpoint, endpoint } from '../../http/endpoint.js';
import type { Shape } from '../../http/response-schema.js';
import type { RateCounter } from '../../limits/rate-counter.js';
import { signedInExample, signedInResponse } from '../../modules/users/view.js';
import { preferredLocale } from '../../validation/messages.js';
import { rules } from '../../validation/rule-list.js';
import { reauthProof, reauthRules } from '../reauth/rules.js';
import { clientInfo } from '../request-client.js';
import { answered } from '../sign-in/admission.js';
import { cancelDeletionRules } from './rules.js';
import type { ScheduledDeletions } from './scheduled.js';
import type { AccountDeletion, DeletionOutcome } from './service.js';

/**
 * Either shape of DeletionOutcome, as one object whose `scheduled_for` comes only with `deleted: false`: an
 * immediate deletion answers exactly `{"deleted": true}`, as it always has.
 */
const deletionOutcome: Shape<DeletionOutcome> = {
  schema: {
    type: 'object',
    description:
      '`{"deleted": true}` when the account was deleted at once (DELETION_GRACE_DAYS=0); ' +
      '`{"deleted": false, "scheduled_for": …}` when its deletion is scheduled for that time.',
    properties: {
      deleted: { type: 'boolean' },
      scheduled_for: {
        type: 'string',
        format: 'date-time',
        description: 'When the account is erased; only with `deleted: false`.',
      },
    },
    required: ['deleted'],
  },
};

/**
 * `providers`: the configured provider names, whose credentials a password-less account re-authenticates
 * with. `loginLimit`: the logins per IP, which the cancel's password check shares.
 */
export function accountDeletionEndpoints(
  deletion: AccountDeletion,
  scheduled: ScheduledDeletions,
  providers: readonly string[],
  loginLimit: RateCounter,
): AnyEndpoint[] {
  return [
    endpoint({
      method: 'POST',
      path: '/user/delete',
      // Open to a child awaiting a guardian's consent (docs/identity.md).
      beforeGuardianConsent: true,
      summary: "Delete the signed-in user's account and everything of it",
      description:
        'Needs re-authentication: `current_password`, or for a password-less account the credentials of a ' +
        'provider linked to it. With a grace period (DELETION_GRACE_DAYS, 14 days by default) it answers ' +
        '`{"deleted": false, "scheduled_for": …}`: every token is revoked at once, the posts and profile ' +
        'can no longer be found while the email, username and slug stay taken, and a mail (in the language ' +
        'of Accept-Language) carries a single-use link to take the deletion back (`auth/deletion/cancel`); ' +
        'signing in answers 409 `deletion_scheduled` until then. At `scheduled_for` the server deletes the ' +
        'account. Without a grace period (`DELETION_GRACE_DAYS=0`) one transaction deletes the user, its ' +
        'tokens, devices, provider links, posts and likes (the liked posts count one like less), its files ' +
        'are removed after, the email, username and slug are free again at once, and it answers ' +
        '`{"deleted": true}`.',
      tag: 'user',
      auth: 'required',
      // 429: wrong proofs count per account (Reauthentication); 502: the provider could not be asked.
      errors: [429, 502],
      // Only the re-authentication proof (checked by the service, which knows if there is a password).
      rules: rules({ ...reauthRules(providers) }),
      response: deletionOutcome,
      example: { deleted: false, scheduled_for: '2026-12-07T10:22:03.466Z' },
      handle: ({ params, auth, request }) =>
        deletion.deleteOwn(
          auth,
          reauthProof(params, providers),
          preferredLocale(request.headers['accept-language']),
          clientInfo(request),
        ),
    }),
    endpoint({
      method: 'POST',
      path: '/auth/deletion/cancel',
      summary: "Take back the scheduled deletion of one's account",
      description:
        'Either `token` (from the link in the mail that announced the deletion; it works once) or the ' +
        "account's `email` and `password` (throttled like email login). Restores the account as it was — " +
        'its posts and profile are found again, its names stay its own — and answers like login, with a new ' +
        'token: `{"user": {…, "api_token"}}`. The tokens revoked when the deletion was scheduled stay ' +
        'revoked, and so is any other: every device signs in again. With a second factor on, the token or the ' +
        "password is only the first factor: the answer is the login's 401 `second_factor_required`, and " +
        '`auth/login/second-factor` with its `challenge` and a code takes the deletion back and answers the ' +
        'session. A used, expired or unknown token is a 422 on `token`; the right credentials of an account ' +
        'whose deletion is not scheduled are a 422 on `email`.',
      tag: 'auth',
      auth: 'none',
      limit: loginLimit,
      errors: [401, 429],
      rules: cancelDeletionRules,
      response: signedInResponse,
      example: { user: { ...signedInExample.user, bio: '안녕하세요', email_verified: true } },
      handle: async ({ params, request }) => answered(await scheduled.cancel(params, clientInfo(request))),
    }),
  ];
}
