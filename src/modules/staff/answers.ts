import type { FastifyReply, FastifyRequest } from 'fastify';
import type { StaffAuth } from '../../http/admin-endpoint.js';
import { t } from '../../http/response-schema.js';
import { setStaffCookie } from '../../http/staff-cookie.js';
import { string } from '../../validation/field-kinds.js';
import { permissions, staffRoles } from './permissions.js';
import { ABSOLUTE_SESSION_MS, type StaffSession } from './sign-in.js';

/* What the staff endpoints share: the signed-in answer, and the enrollment link's token. */

export const signedInShape = t.object({
  staff: t.object({ id: t.string(), email: t.string(), role: t.enum(staffRoles) }),
  permissions: t.array(t.enum(permissions)),
  csrf_token: t.string('Send it back in X-CSRF-Token with every POST of this session.'),
});

export const signedInExample = {
  staff: { id: '019ad0c4-5e20-7b4c-9d1e-2f3a4b5c6d7e', email: 'minji@example.com', role: 'support' as const },
  permissions: [
    'users.read' as const,
    'users.unmask' as const,
    'users.export' as const,
    'users.act' as const,
    'content.read' as const,
  ],
  csrf_token: 'kq1mS3oQ1oYx3y0f2wq6VbX8m3k0H1w2Xy9tq5Zr0sA',
};

/** The signed-in staff member as the admin API answers it. */
export function signedIn(auth: StaffAuth) {
  return {
    staff: {
      id: auth.staff.id,
      email: auth.staff.email,
      role: auth.staff.role as (typeof staffRoles)[number],
    },
    permissions: auth.permissions as (typeof permissions)[number][],
    csrf_token: auth.csrfToken,
  };
}

/** A sign-in's answer: the session's cookie set (Path=/admin), and who it signs in. */
export function sessionStarted(request: FastifyRequest, reply: FastifyReply, session: StaffSession) {
  setStaffCookie(request, reply, session.token, ABSOLUTE_SESSION_MS / 1000);
  return signedIn(session.auth);
}

export const tokenField = string().required().max(128).describe('The `token` of the enrollment link.');
