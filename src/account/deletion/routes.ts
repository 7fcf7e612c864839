import { type AnyEndpoint, endpoint } from '../../http/endpoint.js';
import { t } from '../../http/response-schema.js';
import { rules } from '../../validation/rule-list.js';
import { reauthProof, reauthRules } from '../reauth/rules.js';
import type { AccountDeletion } from './service.js';

/** `providers`: the configured provider names, whose credentials a password-less account re-authenticates with. */
export function accountDeletionEndpoints(
  deletion: AccountDeletion,
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
      // 429: wrong proofs count per account (Reauthentication); 502: the provider could not be asked.
      errors: [429, 502],
      // Only the re-authentication proof (checked by the service, which knows if there is a password).
      rules: rules({ ...reauthRules(providers) }),
      response: t.object({ deleted: t.literal(true) }),
      example: { deleted: true },
      handle: ({ params, auth }) => deletion.deleteOwn(auth, reauthProof(params, providers)),
    }),
  ];
}
