import { resetPageUrl, SecurityActivity } from '../account/security-activity/recorder.js';
import type { Config } from '../config.js';
import { ActivityCursorCodec } from '../modules/security-events/cursor.js';
import { SecurityEventsRepo } from '../modules/security-events/repo.js';
import { SecurityEventsService } from '../modules/security-events/service.js';
import type { ServiceDeps } from './deps.js';

/**
 * The security activity log, built first: every service below that logs an event (the server's and the
 * operator commands' alike) receives this one recorder.
 */
export function buildSecurityLog(config: Config, deps: ServiceDeps) {
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

export type SecurityLog = ReturnType<typeof buildSecurityLog>;
