import { type AnyEndpoint, endpoint } from '../../http/endpoint.js';
import { rules } from '../../validation/rule-list.js';
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
