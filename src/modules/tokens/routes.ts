import { type AnyEndpoint, endpoint } from '../../http/endpoint.js';
import { rules, string } from '../../validation/fields.js';
import type { TokensService } from './service.js';

export function tokenEndpoints(tokens: TokensService): AnyEndpoint[] {
  return [
    endpoint({
      method: 'GET',
      path: '/user/tokens',
      summary: "The signed-in user's sessions (API tokens)",
      description:
        'Newest first: id, created_at, last_used_at (updated at most once a minute), expires_at, the user ' +
        'agent it was issued to, the device it registered, and which one is `current`. Never the token itself.',
      tag: 'user',
      auth: 'required',
      rules: rules({}),
      handle: async ({ auth }) => ({
        tokens: await tokens.list(auth),
      }),
    }),
    endpoint({
      method: 'POST',
      path: '/user/tokens/:id/revoke',
      summary: "Revoke one of the signed-in user's sessions",
      description: 'Only the user’s own tokens; any other id is a 404. Revoking the current token signs out.',
      tag: 'user',
      auth: 'required',
      errors: [404],
      rules: rules({ id: string().required().describe('The `id` of the session, from user/tokens.') }),
      handle: async ({ params, auth }) => {
        await tokens.revokeOwn(auth, params.id);
        return { status: 'revoked' };
      },
    }),
  ];
}
