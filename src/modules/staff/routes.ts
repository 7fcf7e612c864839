import { type AnyAdminEndpoint, adminEndpoint, type StaffAuth } from '../../http/admin-endpoint.js';
import { t } from '../../http/response-schema.js';
import { clearStaffCookie } from '../../http/staff-cookie.js';
import type { RateCounter } from '../../limits/rate-counter.js';
import { string } from '../../validation/field-kinds.js';
import { rules } from '../../validation/rule-list.js';
import { newPasswordField } from '../users/rules.js';
import { sessionStarted, signedIn, signedInExample, signedInShape, tokenField } from './answers.js';
import type { StaffEnrollment } from './enrollment.js';
import { staffRoles } from './permissions.js';
import type { StaffService } from './service.js';
import type { StaffSignIn } from './sign-in.js';

const codeField = string().required().max(16).describe('The six digits the authenticator app shows now.');

const staffShape = t.object({
  id: t.string(),
  email: t.string(),
  role: t.enum(staffRoles),
  state: t.enum(['invited', 'active', 'disabled', 'locked'] as const),
  enrolled_at: t.nullable(t.dateTime()),
  disabled_at: t.nullable(t.dateTime()),
  locked_until: t.nullable(t.dateTime()),
  created_at: t.dateTime(),
});

const staffExample = {
  id: '019ad0c4-5e20-7b4c-9d1e-2f3a4b5c6d7e',
  email: 'minji@example.com',
  role: 'support' as const,
  state: 'active' as const,
  enrolled_at: '2026-11-28T09:12:00.000Z',
  disabled_at: null,
  locked_until: null,
  created_at: '2026-11-28T09:00:00.000Z',
};

/** Who changes rights from the console, as the record of rights names them. */
const actorOf = (auth: StaffAuth) => `staff:${auth.staff.id}`;

/** The admin API's own routes: enrollment, sign-in and sign-out, the signed-in member, the staff list. */
export function staffAdminEndpoints(
  signIn: StaffSignIn,
  enrollment: StaffEnrollment,
  staff: StaffService,
  /** The users' per-IP login limit (RATE_LIMIT_LOGIN): a guess at a staff password costs the same. */
  loginLimit: RateCounter,
): AnyAdminEndpoint[] {
  return [
    adminEndpoint({
      method: 'GET',
      path: '/enrollment',
      summary: 'What an enrollment link enrolls: the member and the authenticator secret to add',
      tag: 'staff',
      auth: 'none',
      errors: [410],
      rules: rules({ token: tokenField }),
      response: t.object({
        email: t.string(),
        role: t.string(),
        totp_secret: t.string(),
        otpauth_url: t.string(),
      }),
      example: {
        email: 'minji@example.com',
        role: 'support',
        totp_secret: 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP',
        otpauth_url:
          'otpauth://totp/accounts:minji%40example.com?issuer=accounts&secret=JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP&algorithm=SHA1&digits=6&period=30',
      },
      handle: async ({ params }) => enrollment.enrollment(params.token),
    }),
    adminEndpoint({
      method: 'POST',
      path: '/enrollment',
      summary: 'Completes an enrollment: the password, and a code proving the authenticator',
      description: 'The link then answers 410 enrollment_used. Sent by the console page (X-Requested-With).',
      tag: 'staff',
      auth: 'none',
      limit: loginLimit,
      errors: [410],
      rules: rules({ token: tokenField, password: newPasswordField.required(), code: codeField }),
      response: t.object({ status: t.literal('enrolled') }),
      example: { status: 'enrolled' },
      handle: async ({ params }) => {
        await enrollment.enroll(params.token, params.password, params.code);
        return { status: 'enrolled' as const };
      },
    }),
    adminEndpoint({
      method: 'POST',
      path: '/auth/login',
      summary: 'Staff sign-in: email, password and the authenticator code, every time',
      description: 'Sets the staff session cookie (Path=/admin). Five wrong in a row lock the account.',
      tag: 'staff',
      auth: 'none',
      limit: loginLimit,
      rules: rules({
        email: string().required().max(255),
        password: string().required().max(1024),
        code: codeField,
      }),
      response: signedInShape,
      example: signedInExample,
      handle: async ({ params, request, reply }) => {
        const session = await signIn.signIn({
          email: params.email,
          password: params.password,
          factor: { code: params.code },
          clientAddress: request.ip,
        });
        return sessionStarted(request, reply, session);
      },
    }),
    adminEndpoint({
      method: 'POST',
      path: '/auth/logout',
      summary: 'Ends the staff session',
      tag: 'staff',
      auth: 'staff',
      rules: rules({}),
      response: t.object({ status: t.literal('signed_out') }),
      example: { status: 'signed_out' },
      handle: async ({ staff, request, reply }) => {
        await signIn.signOut(staff.sessionId);
        clearStaffCookie(request, reply);
        return { status: 'signed_out' as const };
      },
    }),
    adminEndpoint({
      method: 'GET',
      path: '/me',
      summary: 'The signed-in staff member, their role and permissions, and the CSRF token',
      tag: 'staff',
      auth: 'staff',
      rules: rules({}),
      response: signedInShape,
      example: signedInExample,
      handle: async ({ staff }) => signedIn(staff),
    }),
    adminEndpoint({
      method: 'GET',
      path: '/staff',
      summary: 'Every staff member and their state',
      tag: 'staff',
      auth: 'staff',
      permission: 'staff.manage',
      rules: rules({}),
      response: t.object({ staff: t.array(staffShape) }),
      example: {
        staff: [staffExample],
      },
      handle: async () => ({ staff: await staff.list() }),
    }),
    ...(['unlock', 'disable', 'enable'] as const).map((action) =>
      adminEndpoint({
        method: 'POST',
        path: `/staff/:id/${action}`,
        summary: `${action.charAt(0).toUpperCase()}${action.slice(1)}s a staff member; recorded with who did it`,
        description: "A member's own rights cannot be changed by themselves (403).",
        tag: 'staff',
        auth: 'staff',
        permission: 'staff.manage',
        errors: [404],
        rules: rules({ id: string().required().max(255).describe('The `id` of the member, from /staff.') }),
        response: t.object({ staff: staffShape }),
        example: { staff: staffExample },
        handle: async ({ params, staff: auth }) => ({ staff: await staff[action](params.id, actorOf(auth)) }),
      }),
    ),
    adminEndpoint({
      method: 'POST',
      path: '/staff/:id/role',
      summary: "Changes a staff member's role (their sessions end); recorded with who did it",
      description: "A member's own role cannot be changed by themselves (403).",
      tag: 'staff',
      auth: 'staff',
      permission: 'staff.manage',
      errors: [404],
      rules: rules({
        id: string().required().max(255).describe('The `id` of the member, from /staff.'),
        role: string().required().in(staffRoles),
      }),
      response: t.object({ staff: staffShape }),
      example: { staff: staffExample },
      handle: async ({ params, staff: auth }) => ({
        staff: await staff.setRole(params.id, params.role, actorOf(auth)),
      }),
    }),
  ];
}
