import { type AnyEndpoint, endpoint } from '../../http/endpoint.js';
import type { ActivityCursorCodec } from './cursor.js';
import { activityRules } from './rules.js';
import type { SecurityEventsService } from './service.js';
import { activityExample, activityPageShape } from './view.js';

export function securityEventEndpoints(
  events: SecurityEventsService,
  codec: ActivityCursorCodec,
): AnyEndpoint[] {
  return [
    endpoint({
      method: 'GET',
      path: '/user/activity',
      summary: "The signed-in user's security activity, newest first, a page at a time",
      description:
        'Sign-ins (and failed ones, counted per 10 minutes), password, email and provider changes, revoked ' +
        'sessions: when, from which IP and device. Keyset pagination: pass `next_cursor` back as `cursor` ' +
        'until it is null. Events older than SECURITY_EVENTS_DAYS are removed.',
      tag: 'user',
      auth: 'required',
      rules: activityRules(codec),
      response: activityPageShape,
      example: activityExample,
      handle: ({ params, auth }) =>
        events.list(auth.user.id, { limit: params.limit ?? 20, cursor: params.cursor }),
    }),
  ];
}
