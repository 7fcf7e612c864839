import { type AnyEndpoint, endpoint } from '../../http/endpoint.js';
import { t } from '../../http/response-schema.js';
import { rules } from '../../validation/fields.js';
import { preferredLocale } from '../../validation/messages.js';
import { reauthProof } from '../providers/reauth-rules.js';
import type { AccountDeletionService } from './deletion-service.js';
import type { ProfileService } from './profile-service.js';
import { accountDeletionRules, type UsersTaken, userUpdateRules } from './rules.js';
import type { UsersService } from './service.js';
import { userExample, userResponse } from './view.js';

export function userEndpoints(users: UsersService): AnyEndpoint[] {
  return [
    endpoint({
      method: 'GET',
      path: '/user/get',
      summary: 'The signed-in user',
      tag: 'user',
      auth: 'required',
      rules: rules({}),
      response: userResponse,
      example: { user: userExample },
      handle: async ({ auth }) => ({ user: await users.view(auth.user, auth.linkedProviders) }),
    }),
  ];
}

/**
 * `providers`: the configured provider names, whose credentials a password-less account re-authenticates with;
 * `taken`: the uniqueness questions of the profile's names (the users service answers them).
 */
export function profileEndpoints(
  profile: ProfileService,
  providers: readonly string[],
  taken: UsersTaken,
): AnyEndpoint[] {
  return [
    endpoint({
      method: 'POST',
      path: '/user/update',
      summary: "Change the signed-in user's profile, email or password",
      description:
        'Any of the fields; those left out keep their value. Same rules and messages as registration; ' +
        'uniqueness ignores the user itself. A new password or email needs re-authentication ' +
        "(`current_password`, or a linked provider's credentials for a password-less account); a new " +
        'password signs out every other session.',
      tag: 'user',
      auth: 'required',
      rules: userUpdateRules(providers, taken),
      response: userResponse,
      example: { user: { ...userExample, bio: '안녕하세요, 민지입니다.' } },
      handle: async ({ params, auth, request }) => ({
        user: await profile.update(
          auth,
          params,
          reauthProof(params, providers),
          preferredLocale(request.headers['accept-language']),
        ),
      }),
    }),
  ];
}

/** `providers`: the configured provider names, as for profileEndpoints. */
export function accountDeletionEndpoints(
  deletion: AccountDeletionService,
  providers: readonly string[],
): AnyEndpoint[] {
  return [
    endpoint({
      method: 'POST',
      path: '/user/delete',
      summary: "Delete the signed-in user's account and everything of it",
      description:
        'Needs re-authentication: `current_password`, or for a password-less account the credentials of a ' +
        'provider linked to it. One transaction deletes the user, its tokens, devices, provider links, posts ' +
        'and likes (the liked posts count one like less); its files are removed after. The email, username ' +
        'and slug are free again at once. Answers `{"deleted": true}`.',
      tag: 'user',
      auth: 'required',
      // 429: wrong proofs count per account (ReauthService); 502: the provider could not be asked.
      errors: [429, 502],
      rules: accountDeletionRules(providers),
      response: t.object({ deleted: t.literal(true) }),
      example: { deleted: true },
      handle: ({ params, auth }) => deletion.deleteOwn(auth, reauthProof(params, providers)),
    }),
  ];
}
