import type { Config } from '../config.js';
import { DevicesRepo } from '../modules/devices/repo.js';
import { DevicesService } from '../modules/devices/service.js';
import { NotificationOutboxRepo } from '../modules/notifications/repo.js';
import { NotificationsService } from '../modules/notifications/service.js';
import { createPushTransport } from '../push/create-transport.js';
import type { ServiceDeps } from './deps.js';

/** The users' devices and the push notifications sent to them (the server's alone: no command pushes). */
export function buildNotifications(config: Config, deps: ServiceDeps) {
  const db = deps.database.db;
  const devicesRepo = new DevicesRepo(db);
  const devices = new DevicesService(db, devicesRepo);
  const push = createPushTransport(config.push, new NotificationOutboxRepo(db), deps.log);
  const notifications = new NotificationsService(devices, push, (details, error) =>
    deps.log.error({ err: error, ...details }, 'dropping a dead push token failed'),
  );
  return { devicesRepo, devices, notifications };
}
