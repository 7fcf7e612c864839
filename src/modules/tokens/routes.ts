import { type AnyEndpoint, endpoint } from '../../http/endpoint.js';
import { t } from '../../http/response-schema.js';
import { string } from '../../validation/field-kinds.js';
import { rules } from '../../validation/rule-list.js';
import { type TokensService, tokenShape } from './service.js';

export function tokenEndpoints(tokens: TokensService): AnyEndpoint[] {
  return [
    endpoint({
      method: 'GET',
      path: '/user/tokens',
      summary: "The signed-in user's sessions (API tokens)",
      description:
        'Newest first: id, created_at, last_used_at (updated at most once a minute), expires_at, the user ' +
        'agent it was issued to and a readable `device_name` parsed from it, the device it registered, and which one is `current`. Never the token itself.',
      tag: 'user',
      auth: 'required',
      rules: rules({}),
      response: t.object({ tokens: t.array(tokenShape) }),
      example: {
        tokens: [
          {
            id: '019ab0c4-5e20-7b4c-9d1e-2f3a4b5c6d7e',
            created_at: '2026-11-23T12:40:05.130Z',
            last_used_at: '2026-11-23T12:43:12.001Z',
            expires_at: null,
            user_agent: 'Accounts/3.2.0 (iPhone; iOS 18.1)',
            device_name: 'Accounts 3 · iPhone · iOS',
            device: { device_id: 'A1B2C3D4-E5F6-4711-8899-AABBCCDDEEFF', platform: 'ios' },
            current: true,
          },
        ],
      },
      handle: async ({ auth }) => ({
        tokens: await tokens.list(auth),
      }),
    }),
    endpoint({
      method: 'POST',
      path: '/user/tokens/:id/revoke',
      // Open to a child awaiting a guardian's consent (docs/identity.md).
      beforeGuardianConsent: true,
      summary: "Revoke one of the signed-in user's sessions",
      description: 'Only the user’s own tokens; any other id is a 404. Revoking the current token signs out.',
      tag: 'user',
      auth: 'required',
      errors: [404],
      rules: rules({ id: string().required().describe('The `id` of the session, from user/tokens.') }),
      response: t.object({ status: t.literal('revoked') }),
      example: { status: 'revoked' },
      handle: async ({ params, auth, request }) => {
        await tokens.revokeOwn(auth, params.id, { ip: request.ip, userAgent: request.headers['user-agent'] });
        return { status: 'revoked' as const };
      },
    }),
  ];
}
