import { type Endpoint, endpoint } from '../../http/endpoint.js';
import { rules } from '../../validation/fields.js';
import type { TokensService } from './service.js';

export function tokenEndpoints(tokens: TokensService): Endpoint[] {
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
        tokens: await tokens.list((auth.user as { id: string }).id, auth.tokenId),
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
      rules: rules({}),
      handle: async ({ auth, request }) => {
        const { id } = request.params as { id: string };
        await tokens.revokeOwn((auth.user as { id: string }).id, id);
        return { status: 'revoked' };
      },
    }),
  ];
}
