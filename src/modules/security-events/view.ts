import type { SecurityEventRow } from '../../db/schema.js';
import { type Shape, type Static, t } from '../../http/response-schema.js';
import { iso } from '../../lib/time.js';
import { describeDevice } from './device.js';

/** An event's details: a flat object whose keys depend on its type (docs/SECURITY.md lists them). */
const detailsShape = t.record({ schema: {} } as Shape<unknown>);

export const securityEventShape = t.object({
  id: t.string(),
  type: t.string(),
  at: t.dateTime(),
  ip: t.nullable(t.string()),
  user_agent: t.nullable(t.string()),
  /** A short name of the device, read from the user agent ("Chrome on macOS"). */
  device: t.string(),
  details: detailsShape,
});
export type SecurityEventView = Static<typeof securityEventShape>;

export const activityPageShape = t.object({
  events: t.array(securityEventShape),
  next_cursor: t.nullable(t.string()),
});
export type ActivityPage = Static<typeof activityPageShape>;

export function securityEventView(row: SecurityEventRow): SecurityEventView {
  return {
    id: row.id,
    type: row.type,
    at: iso(row.at),
    ip: row.ip,
    user_agent: row.user_agent,
    device: describeDevice(row.user_agent).name,
    details: row.details,
  };
}

export const activityExample: ActivityPage = {
  events: [
    {
      id: '019ab0c4-5e20-7b4c-9d1e-2f3a4b5c6d7e',
      type: 'sign_in',
      at: '2026-11-23T12:40:05.130Z',
      ip: '203.0.113.7',
      user_agent: 'Accounts/3.2.0 (iPhone; iOS 18.1)',
      device: 'Accounts on iPhone',
      details: { method: 'email', new_device: false },
    },
  ],
  next_cursor: null,
};
