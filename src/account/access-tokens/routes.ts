import { type AnyEndpoint, endpoint } from '../../http/endpoint.js';
import { t } from '../../http/response-schema.js';
import { rules } from '../../validation/rule-list.js';
import type { AccessTokens } from './service.js';

/** A real token (of a key long gone): what a client receives. */
const EXAMPLE_TOKEN = [
  'eyJhbGciOiJFZERTQSIsImtpZCI6ImlzbGc3TWRkMGZ0ckV4bS10M1Q5WXExNXVtb19qVXpKSm9fc2JXZF9FWWciLCJ0eXAiOiJhdCtqd3QifQ.',
  'eyJzaWQiOiIwMTlhYjBjNC01ZTIwLTdiNGMtOWQxZS0yZjNhNGI1YzZkN2UiLCJhdXRoX3RpbWUiOjE3OTU0Mzc2MDUsImFtciI6',
  'WyJwd2QiXSwiZW1haWxfdmVyaWZpZWQiOnRydWUsImlkZW50aXR5X3ZlcmlmaWVkIjpmYWxzZSwiYWR1bHQiOnRydWUsImlzcyI6',
  'Imh0dHBzOi8vYWNjb3VudHMuZXhhbXBsZS5jb20iLCJzdWIiOiIwMTlhYjBjMi0xZjNlLTdhNDQtOGIyYy01ZDZlN2Y4MDlhMWIi',
  'LCJhdWQiOiJodHRwczovL2FwaS5leGFtcGxlLmNvbSIsImlhdCI6MTc5NTQzODAwMCwiZXhwIjoxNzk1NDM4MzAwLCJqdGkiOiIw',
  'MTlhYjBjOS03ZDQxLTdlMmEtYTFiMy1jNGQ1ZTZmNzA4MTkifQ.',
  'HVveZkEaG_KANe0jnpSi3Pxt0RDY2ggJAyAnJFS6hmdViOnvjtJCN-tH8weSHaSE0V2sBcEQEU3xtQR6PxKKDA',
].join('');

export function accessTokenEndpoints(accessTokens: AccessTokens): AnyEndpoint[] {
  return [
    endpoint({
      method: 'POST',
      path: '/auth/token',
      summary: 'A short-lived access token for the app’s other services',
      description:
        'A JWT signed with the current key of `/.well-known/jwks.json` (EdDSA, or ES256), for the app’s ' +
        'other services to verify alone: `iss`, `sub` (the user id), `sid` (this session’s id), `aud`, ' +
        '`iat`, `exp`, `jti`, `auth_time`, `amr` (RFC 8176), `email_verified`, `identity_verified` and ' +
        '`adult`, nothing more. It lives `expires_in` seconds (ACCESS_TOKEN_TTL); this service’s own ' +
        'routes never accept it. 503 `access_tokens_not_configured` without SECRETS_KEY (docs/tokens.md).',
      tag: 'auth',
      auth: 'required',
      errors: [503],
      rules: rules({}),
      response: t.object({
        access_token: t.string('The JWT, for `Authorization: Bearer` on the other services.'),
        token_type: t.literal('Bearer'),
        expires_in: t.integer(),
      }),
      example: { access_token: EXAMPLE_TOKEN, token_type: 'Bearer', expires_in: 300 },
      handle: async ({ auth }) => accessTokens.issue(auth),
    }),
  ];
}
