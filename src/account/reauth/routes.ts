import { type AnyEndpoint, endpoint } from '../../http/endpoint.js';
import { t } from '../../http/response-schema.js';
import { rules } from '../../validation/rule-list.js';
import { reauthWindowProof, reauthWindowRules } from './rules.js';
import type { Reauthentication } from './service.js';

/** `providers`: the configured provider names, whose credentials a password-less account proves itself with. */
export function reauthEndpoints(reauth: Reauthentication, providers: readonly string[]): AnyEndpoint[] {
  return [
    endpoint({
      method: 'POST',
      path: '/user/reauth',
      // Open to a child awaiting a guardian's consent (docs/identity.md).
      beforeGuardianConsent: true,
      summary: 'Confirm it is the owner, once for a few minutes of this session',
      description:
        'Takes any proof the re-authenticated endpoints take: `current_password`, or for a password-less ' +
        'account the credentials of a provider linked to it, or `passkey_challenge_id` + `passkey_response` ' +
        '(user/passkeys/reauth-options). It opens a window for this token alone until ' +
        '`reauthenticated_until` (REAUTH_WINDOW, 10 minutes by default, from now: use never extends it), in ' +
        'which user/update (password, email), user/delete, user/export, the second factor, passkeys and ' +
        'provider links need no proof; a proof sent anyway is checked as always. Another token of the same ' +
        'user gets nothing from it, and revoking the token ends it. With a second factor on, the window of ' +
        'a password (or provider token) alone does not add or remove a way to sign in (a passkey, a ' +
        'provider link, the email; those answer the 422 `reauth_second_factor` on `code`): send `code` or ' +
        '`recovery_code` beside it, or re-authenticate with a passkey. A wrong proof is the 422 those ' +
        'endpoints answer, and counts per session and per account.',
      tag: 'user',
      auth: 'required',
      // 429: wrong proofs count per session and per account (Reauthentication); 502: the provider could
      // not be asked.
      errors: [429, 502],
      rules: rules(reauthWindowRules(providers)),
      response: t.object({ reauthenticated_until: t.dateTime() }),
      example: { reauthenticated_until: '2026-11-27T10:32:03.466Z' },
      handle: ({ params, auth }) => reauth.openWindow(auth, reauthWindowProof(params, providers)),
    }),
  ];
}
