import type { UserRow } from '../../db/schema.js';
import { type Endpoint, endpoint } from '../../http/endpoint.js';
import { rules } from '../../validation/fields.js';
import type { UsersService } from './service.js';

export function userEndpoints(users: UsersService): Endpoint[] {
  return [
    endpoint({
      method: 'GET',
      path: '/user/get',
      summary: 'The signed-in user',
      tag: 'user',
      auth: 'required',
      rules: rules({}),
      handle: async ({ auth }) => ({ user: await users.view(auth.user as UserRow) }),
    }),
  ];
}
