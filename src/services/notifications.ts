import { DevicesRepo } from '../modules/devices/repo.js';
import { DevicesService } from '../modules/devices/service.js';
import { NotificationsService } from '../modules/notifications/service.js';
import type { FactoryArgs } from './deps.js';

/** The users' devices and the push notifications sent to them. */
export interface NotificationServices {
  devicesRepo: DevicesRepo;
  devices: DevicesService;
  notifications: NotificationsService;
}

/** The users' devices and the push notifications sent to them, through the instance's push transport. */
export function buildNotifications({ deps }: FactoryArgs): NotificationServices {
  const db = deps.database.db;
  const devicesRepo = new DevicesRepo(db);
  const devices = new DevicesService(db, devicesRepo);
  const notifications = new NotificationsService(devices, deps.push, (details, error) =>
    deps.log.error({ err: error, ...details }, 'dropping a dead push token failed'),
  );
  return { devicesRepo, devices, notifications };
}
