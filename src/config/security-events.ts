import { boolean, type Env, integer } from './env.js';

/** The security activity log and its alert mails. */
export interface SecurityEventsConfig {
  /** SECURITY_EVENTS_DAYS: events older than this are pruned. */
  retentionDays: number;
  /** SECURITY_ALERTS: mail the user about sign-ins from new devices and changes to the account. */
  alerts: boolean;
}

export function parseSecurityEvents(env: Env): SecurityEventsConfig {
  return {
    retentionDays: integer(env, 'SECURITY_EVENTS_DAYS', 365, 1, 36_500),
    alerts: boolean(env, 'SECURITY_ALERTS', true),
  };
}
