import { type AnyAdminEndpoint, adminEndpoint } from '../../http/admin-endpoint.js';
import { t } from '../../http/response-schema.js';
import { ACCOUNT_EVENT_TYPES, isAccountEventType } from '../../modules/account-events/types.js';
import { integer, string, stringArray } from '../../validation/field-kinds.js';
import { rules } from '../../validation/rule-list.js';
import { actorOf, refusedAs } from '../console-users/route-actor.js';
import { type AccessRecorder, reasonField } from '../console-users/staff-access.js';
import type { ConsoleWebhooks } from './service.js';

const ENDPOINT_ID = '019ad0c4-5e20-7b4c-9d1e-2f3a4b5c6d7e';
const EVENT_ID = '019ad0c5-0a1b-7c2d-8e3f-405162738495';
const AT = '2026-11-28T09:00:00.000Z';

export const DELIVERIES_LIMIT = { max: 100, default: 20 } as const;

const idField = string().required().max(64).describe('The endpoint’s `id`.');
const reason = reasonField.required();

const endpointShape = t.object({
  id: t.string(),
  url: t.string(),
  description: t.nullable(t.string()),
  events: t.nullable(t.array(t.string())),
  created_at: t.dateTime(),
  disabled_at: t.nullable(t.dateTime()),
  disabled_reason: t.nullable(t.enum(['operator', 'failing', 'gone'] as const)),
  failing_since: t.nullable(t.dateTime()),
});
const outcome = t.enum(['delivered', 'retry', 'failed'] as const);
const deliveryShape = t.object({
  event_id: t.string(),
  type: t.string(),
  occurred_at: t.dateTime(),
  state: t.enum(['waiting', 'delivered', 'retry', 'failed'] as const),
  next_attempt_at: t.nullable(t.dateTime()),
  attempts: t.array(
    t.object({
      attempt: t.integer(),
      at: t.dateTime(),
      outcome,
      status_code: t.nullable(t.integer()),
      error: t.nullable(t.string()),
    }),
  ),
});

/** Event types: each one of the account events' (docs/events.md), at least one. */
const eventsField = stringArray()
  .max(ACCOUNT_EVENT_TYPES.length)
  .rule({
    name: `in:${ACCOUNT_EVENT_TYPES.join(',')}`,
    failures: [{ rule: 'in' }],
    check: (types) => (types.length > 0 && types.every(isAccountEventType) ? undefined : { rule: 'in' }),
  })
  .describe('The event types it receives (every type when left out).');

/** The one right every webhook route needs (admin's alone). */
const PERMISSION = 'webhooks.manage';

/** A change to one endpoint: `POST /webhooks/:id/<name>` with a reason. */
function endpointChange(
  name: 'disable' | 'enable',
  summary: string,
  webhooks: ConsoleWebhooks,
  refused: ReturnType<typeof refusedAs>,
): AnyAdminEndpoint {
  return adminEndpoint({
    method: 'POST',
    path: `/webhooks/:id/${name}`,
    summary,
    tag: 'webhooks',
    auth: 'staff',
    permission: PERMISSION,
    refused,
    errors: [404],
    rules: rules({ id: idField, reason }),
    response: t.object({ id: t.string(), disabled: t.boolean() }),
    example: { id: ENDPOINT_ID, disabled: name === 'disable' },
    handle: async ({ params, staff, request }) =>
      webhooks.setDisabled(actorOf(staff, request), params.id, name === 'disable', params.reason),
  });
}

/** The admin API's webhooks (docs/console-content.md#webhooks): endpoints, their deliveries, replays. */
export function consoleWebhookEndpoints(
  webhooks: ConsoleWebhooks,
  recorder: AccessRecorder,
): AnyAdminEndpoint[] {
  // A change's refusal is recorded as the change would be (a look at the endpoints is not recorded).
  const refused = (action: string) => refusedAs(recorder, action, PERMISSION);
  return [
    adminEndpoint({
      method: 'GET',
      path: '/webhooks',
      summary: 'The webhook endpoints (never their secrets)',
      tag: 'webhooks',
      auth: 'staff',
      permission: PERMISSION,
      rules: rules({}),
      response: t.object({ endpoints: t.array(endpointShape) }),
      example: {
        endpoints: [
          {
            id: ENDPOINT_ID,
            url: 'https://hooks.example.com/accounts',
            description: 'search index',
            events: null,
            created_at: AT,
            disabled_at: null,
            disabled_reason: null,
            failing_since: null,
          },
        ],
      },
      handle: async ({ staff, request }) => webhooks.list(actorOf(staff, request)),
    }),
    adminEndpoint({
      method: 'POST',
      path: '/webhooks',
      summary: 'Add an endpoint; its signing secret is in the answer, shown this once',
      description: 'The URL is checked as `accounts webhook add` checks it: https, a public address.',
      tag: 'webhooks',
      auth: 'staff',
      permission: PERMISSION,
      refused: refused('webhook.add'),
      rules: rules({
        url: string().required().max(2048).describe('Where to POST the events.'),
        events: eventsField,
        description: string().max(500).describe('What the endpoint is, for the list.'),
        reason,
      }),
      response: t.object({
        id: t.string(),
        url: t.string(),
        events: t.nullable(t.array(t.string())),
        secret: t.string('The `whsec_` secret: shown this once.'),
      }),
      example: {
        id: ENDPOINT_ID,
        url: 'https://hooks.example.com/accounts',
        events: null,
        secret: 'whsec_…',
      },
      handle: async ({ params, staff, request }) => webhooks.add(actorOf(staff, request), params),
    }),
    endpointChange(
      'disable',
      'Stop delivering to an endpoint (what waits for it is kept)',
      webhooks,
      refused('webhook.disable'),
    ),
    endpointChange(
      'enable',
      'Deliver to an endpoint again (what waited is sent)',
      webhooks,
      refused('webhook.enable'),
    ),
    adminEndpoint({
      method: 'POST',
      path: '/webhooks/:id/remove',
      summary: 'Remove an endpoint, what waits for it and its attempts',
      tag: 'webhooks',
      auth: 'staff',
      permission: PERMISSION,
      refused: refused('webhook.remove'),
      errors: [404],
      rules: rules({ id: idField, reason }),
      response: t.object({ removed: t.literal(true) }),
      example: { removed: true },
      handle: async ({ params, staff, request }) =>
        webhooks.remove(actorOf(staff, request), params.id, params.reason),
    }),
    adminEndpoint({
      method: 'POST',
      path: '/webhooks/:id/rotate-secret',
      summary: 'A new secret, shown this once; the previous one signs beside it for 24 hours',
      tag: 'webhooks',
      auth: 'staff',
      permission: PERMISSION,
      refused: refused('webhook.rotate_secret'),
      errors: [404],
      rules: rules({ id: idField, reason }),
      response: t.object({ id: t.string(), secret: t.string(), previous_until: t.dateTime() }),
      example: { id: ENDPOINT_ID, secret: 'whsec_…', previous_until: AT },
      handle: async ({ params, staff, request }) =>
        webhooks.rotateSecret(actorOf(staff, request), params.id, params.reason),
    }),
    adminEndpoint({
      method: 'GET',
      path: '/webhooks/:id/deliveries',
      summary:
        'An endpoint’s deliveries with their attempts, the last attempted first, a keyset page at a time',
      tag: 'webhooks',
      auth: 'staff',
      permission: PERMISSION,
      errors: [404],
      rules: rules({
        id: idField,
        limit: integer()
          .min(1)
          .max(DELIVERIES_LIMIT.max)
          .describe('Deliveries per page (1–100, 20 by default).'),
        cursor: string()
          // At most 18 digits: every such number fits the attempts' bigint ids, so none reaches the
          // database as an out-of-range value.
          .pattern(/^[0-9]{1,18}$/)
          .describe("The previous page's `next_cursor`."),
      }),
      response: t.object({ deliveries: t.array(deliveryShape), next_cursor: t.nullable(t.string()) }),
      example: {
        deliveries: [
          {
            event_id: EVENT_ID,
            type: 'user.created',
            occurred_at: AT,
            state: 'delivered',
            next_attempt_at: null,
            attempts: [{ attempt: 1, at: AT, outcome: 'delivered', status_code: 200, error: null }],
          },
        ],
        next_cursor: null,
      },
      handle: async ({ params, staff, request }) =>
        webhooks.deliveries(actorOf(staff, request), params.id, {
          before: params.cursor,
          limit: params.limit ?? DELIVERIES_LIMIT.default,
        }),
    }),
    adminEndpoint({
      method: 'POST',
      path: '/webhooks/:id/deliveries/:event_id/replay',
      summary: 'Send one event to the endpoint again, with the same webhook-id',
      description:
        'Due at once, or when the endpoint is enabled again; recorded with the user the event is of.',
      tag: 'webhooks',
      auth: 'staff',
      permission: PERMISSION,
      refused: refused('webhook.replay'),
      errors: [404],
      rules: rules({
        id: idField,
        event_id: string().required().max(64).describe('The delivery’s event, from the deliveries.'),
        reason,
      }),
      response: t.object({ event_id: t.string(), endpoint_id: t.string(), queued: t.literal(true) }),
      example: { event_id: EVENT_ID, endpoint_id: ENDPOINT_ID, queued: true },
      handle: async ({ params, staff, request }) =>
        webhooks.replay(actorOf(staff, request), params.id, params.event_id, params.reason),
    }),
  ];
}
