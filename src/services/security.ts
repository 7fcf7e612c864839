import { resetPageUrl, SecurityActivity } from '../account/security-activity/recorder.js';
import { ActivityCursorCodec } from '../modules/security-events/cursor.js';
import { SecurityEventsRepo } from '../modules/security-events/repo.js';
import { SecurityEventsService } from '../modules/security-events/service.js';
import type { FactoryArgs } from './deps.js';

/** The security activity log's parts. */
export interface SecurityLogServices {
  securityEventsRepo: SecurityEventsRepo;
  /** The cursors of the user's activity list (user/security-events). */
  activityCursors: ActivityCursorCodec;
  securityEvents: SecurityEventsService;
  /** The one recorder every service that logs an event receives. */
  activity: SecurityActivity;
}

/**
 * The security activity log, built first: every service below that logs an event (the server's and the
 * operator commands' alike) receives this one recorder.
 */
export function buildSecurityLog({ config, deps }: FactoryArgs): SecurityLogServices {
  const db = deps.database.db;
  const securityEventsRepo = new SecurityEventsRepo(db);
  const activityCursors = new ActivityCursorCodec(() => securityEventsRepo.cursorKey());
  const securityEvents = new SecurityEventsService(securityEventsRepo, activityCursors);
  const activity = new SecurityActivity({
    db,
    events: securityEvents,
    mailer: deps.mailer,
    settings: {
      alerts: config.securityEvents.alerts,
      resetPageUrl: resetPageUrl(config.mail.passwordResetUrl),
    },
    reportFailure: (error, what) =>
      deps.log.error({ err: error, event: what }, 'security event not recorded'),
  });
  return { securityEventsRepo, activityCursors, securityEvents, activity };
}
