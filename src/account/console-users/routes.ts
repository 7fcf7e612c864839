import { type AdminDownload, type AnyAdminEndpoint, adminEndpoint } from '../../http/admin-endpoint.js';
import { t } from '../../http/response-schema.js';
import { slugField, usernameField } from '../../modules/users/rules.js';
import { string } from '../../validation/field-kinds.js';
import { type RuleList, rules } from '../../validation/rule-list.js';
import type { ActionInput, ConsoleUserActions } from './actions.js';
import type { ConsoleUserOverview, UserOverview as Page } from './overview.js';
import { actorOf, type RefusedTarget, refusedAs } from './route-actor.js';
import { exportRules, revealRules, searchRules } from './rules.js';
import type { ConsoleUserSearch } from './search.js';
import { type AccessRecorder, reasonField, type StaffActor } from './staff-access.js';

/** What the console's user routes call: the services (services/console-users.ts) and the records. */
export interface ConsoleUserRouteParts {
  userSearch: ConsoleUserSearch;
  userOverview: ConsoleUserOverview;
  userActions: ConsoleUserActions;
  recorder: AccessRecorder;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A refused request names the user its `:id` is, when it is one. */
const userTarget: RefusedTarget = (id) => ({
  subjectId: id !== undefined && UUID.test(id) ? id.toLowerCase() : null,
});

const idField = string().required().max(64).describe("The user's `id`.");
const localeField = string()
  .in(['en', 'ko'])
  .describe('The language of any mail the user gets (en by default).');
const actionRules = rules({ id: idField, reason: reasonField.required(), locale: localeField });

const searchItem = t.object({
  id: t.string(),
  email: t.string('Masked: m***@example.com.'),
  username: t.string(),
  slug: t.string(),
  email_verified: t.boolean(),
  phone: t.nullable(t.string('Masked: 010-****-5678.')),
  disabled_at: t.nullable(t.dateTime()),
  deletion_due_at: t.nullable(t.dateTime()),
  birth_year: t.nullable(t.string()),
  created_at: t.dateTime(),
});

const USER_ID = '0193a5c1-7d2e-7f00-8a11-3c4d5e6f7a8b';

const part = <T = Record<string, unknown>>(description: string) => t.json<T>(description);

/** The support actions: one route each, `POST /users/:id/<name>` with a reason, `users.act`. */
const ACTIONS: [string, string, string, keyof ConsoleUserActions][] = [
  ['disable', 'users.disable', 'Disable the account: sign-in and every token refused', 'disable'],
  ['enable', 'users.enable', 'Enable a disabled account', 'enable'],
  ['revoke-sessions', 'users.revoke_sessions', 'End every session of the user', 'revokeAllSessions'],
  ['reset-second-factor', 'users.reset_second_factor', 'Remove the second factor', 'resetSecondFactor'],
  [
    'resend-verification',
    'users.resend_verification',
    'Mail a fresh verification link',
    'resendVerification',
  ],
  ['schedule-deletion', 'users.schedule_deletion', "Schedule the account's deletion", 'scheduleDeletion'],
  ['cancel-deletion', 'users.cancel_deletion', 'Cancel a scheduled deletion', 'cancelDeletion'],
];

type PlainAction = (actor: StaffActor, id: string, input: ActionInput) => Promise<object>;

function actionEndpoint(
  parts: ConsoleUserRouteParts,
  [name, record, summary, method]: (typeof ACTIONS)[number],
): AnyAdminEndpoint {
  const run = (parts.userActions[method] as PlainAction).bind(parts.userActions);
  return adminEndpoint({
    method: 'POST',
    path: `/users/:id/${name}`,
    summary,
    tag: 'users',
    auth: 'staff',
    permission: 'users.act',
    refused: refusedAs(parts.recorder, record, 'users.act', userTarget),
    errors: [404],
    rules: actionRules as RuleList,
    response: part('What the action did (e.g. `disabled_at`, `revoked`, `status`).'),
    example: { disabled_at: '2026-11-28T09:00:00.000Z' },
    handle: async ({ params, staff, request }) => {
      const { id, reason, locale } = params as { id: string; reason: string; locale?: 'en' | 'ko' };
      return { ...(await run(actorOf(staff, request), id, { reason, locale })) };
    },
  });
}

/** The admin API's users (docs/console.md#users): search, export, a user's page, show a field, act. */
export function consoleUserEndpoints(parts: ConsoleUserRouteParts): AnyAdminEndpoint[] {
  const { userSearch, userOverview, userActions, recorder } = parts;
  return [
    adminEndpoint({
      method: 'GET',
      path: '/users/search',
      summary: 'Search users by one field, exactly or by prefix, a keyset page at a time (masked)',
      tag: 'users',
      auth: 'staff',
      permission: 'users.read',
      refused: refusedAs(recorder, 'users.search', 'users.read', userTarget),
      rules: searchRules,
      response: t.object({ users: t.array(searchItem), next_cursor: t.nullable(t.string()) }),
      example: {
        users: [
          {
            id: USER_ID,
            email: 'm***@example.com',
            username: 'minji',
            slug: 'minji',
            email_verified: true,
            phone: '010-****-5678',
            disabled_at: null,
            deletion_due_at: null,
            birth_year: '1994',
            created_at: '2026-01-05T03:00:00.000Z',
          },
        ],
        next_cursor: null,
      },
      handle: async ({ params, staff, request }) => userSearch.search(actorOf(staff, request), params),
    }),
    adminEndpoint({
      method: 'POST',
      path: '/users/export',
      summary: "A search's users as CSV (up to 10,000), with a reason; masked below admin",
      description: 'Answers text/csv as an attachment; the access record carries the row count.',
      tag: 'users',
      auth: 'staff',
      permission: 'users.export',
      refused: refusedAs(recorder, 'users.export', 'users.export', userTarget),
      download: { contentType: 'text/csv; charset=utf-8' },
      rules: exportRules,
      response: part<AdminDownload>('The CSV file.'),
      example: { filename: 'users-2026-11-28.csv', body: 'id,email,username\r\n' },
      handle: async ({ params, staff, request }): Promise<AdminDownload> => {
        const done = await userSearch.export(actorOf(staff, request), params);
        const day = new Date().toISOString().slice(0, 10);
        return { filename: `users-${day}.csv`, body: done.csv };
      },
    }),
    adminEndpoint({
      method: 'GET',
      path: '/users/:id',
      summary: "A user's page: profile, sign-in methods, devices, sessions, activity, consents (masked)",
      tag: 'users',
      auth: 'staff',
      permission: 'users.read',
      refused: refusedAs(recorder, 'users.view', 'users.read', userTarget),
      errors: [404],
      rules: rules({ id: idField }),
      response: t.object({
        profile: part<Page['profile']>('The profile, personal data masked.'),
        sign_in: part<Page['sign_in']>('Password, providers, passkeys, second factor.'),
        devices: t.array(part<Page['devices'][number]>('A device.')),
        sessions: t.array(part<Page['sessions'][number]>('A session.')),
        security_activity: t.array(part<Page['security_activity'][number]>('A security event.')),
        consents: part<Page['consents']>('Agreed versions by document, and the records.'),
        identity: part<Page['identity']>(
          'Identity verified, adult, foreigner, guardian consent (never the CI).',
        ),
        deletion: part<Page['deletion']>('Whether and when the account is to be deleted.'),
        account_events: t.array(part<Page['account_events'][number]>('An account event.')),
      }),
      example: {
        profile: {
          id: USER_ID,
          email: 'm***@example.com',
          email_verified: true,
          phone: '010-****-5678',
          phone_verified: true,
          username: 'minji',
          slug: 'minji',
          gender: 0,
          is_inspirer: false,
          birth_year: '1994',
          created_at: '2026-01-05T03:00:00.000Z',
          updated_at: '2026-01-05T03:00:00.000Z',
          disabled_at: null,
        },
        sign_in: { has_password: true, providers: [], passkeys: [], second_factor: false },
        devices: [],
        sessions: [],
        security_activity: [],
        consents: { agreed: {}, records: [] },
        identity: {
          verified: false,
          verified_at: null,
          adult: null,
          foreigner: null,
          guardian_consent: null,
        },
        deletion: { scheduled: false, scheduled_at: null, due_at: null },
        account_events: [],
      },
      handle: async ({ params, staff, request }) => userOverview.overview(actorOf(staff, request), params.id),
    }),
    adminEndpoint({
      method: 'POST',
      path: '/users/:id/reveal',
      summary: 'Show one masked field in full, with a reason (recorded)',
      tag: 'users',
      auth: 'staff',
      permission: 'users.unmask',
      refused: refusedAs(recorder, 'users.reveal', 'users.unmask', userTarget),
      errors: [404],
      rules: rules({ id: idField, ...revealRules }),
      response: t.object({ field: t.string(), value: t.nullable(t.string()) }),
      example: { field: 'phone', value: '+821012345678' },
      handle: async ({ params, staff, request }) =>
        userActions.reveal(actorOf(staff, request), params.id, {
          field: params.field,
          reason: params.reason,
        }),
    }),
    adminEndpoint({
      method: 'POST',
      path: '/users/:id/sessions/:session_id/revoke',
      summary: 'End one session of the user',
      tag: 'users',
      auth: 'staff',
      permission: 'users.act',
      refused: refusedAs(recorder, 'users.revoke_session', 'users.act', userTarget),
      errors: [404],
      rules: rules({
        id: idField,
        session_id: string().required().max(64).describe('The session, from the user’s page.'),
        reason: reasonField.required(),
      }),
      response: t.object({ revoked: t.integer() }),
      example: { revoked: 1 },
      handle: async ({ params, staff, request }) =>
        userActions.revokeSession(actorOf(staff, request), params.id, params.session_id, {
          reason: params.reason,
        }),
    }),
    adminEndpoint({
      method: 'POST',
      path: '/users/:id/rename',
      summary: 'Change the username and/or slug, by the app’s own rules',
      tag: 'users',
      auth: 'staff',
      permission: 'users.act',
      refused: refusedAs(recorder, 'users.rename', 'users.act', userTarget),
      errors: [404],
      rules: // The service checks uniqueness (its own name re-cased is not taken); the route, the shapes.
        rules({ id: idField, username: usernameField, slug: slugField, reason: reasonField.required() }),
      response: t.object({ username: t.string(), slug: t.string() }),
      example: { username: 'minji', slug: 'minji' },
      handle: async ({ params, staff, request }) => {
        const { id, ...input } = params;
        return userActions.rename(actorOf(staff, request), id, input);
      },
    }),
    ...ACTIONS.map((action) => actionEndpoint(parts, action)),
  ];
}
