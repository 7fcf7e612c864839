import { newId } from '../lib/ids.js';
import {
  type PushLogger,
  type PushMessage,
  type PushPayload,
  type PushResult,
  type PushTransport,
  pushTokenHint,
} from './transport.js';

/** Where the log transport records its deliveries (the notification_outbox table, through its repo). */
export interface PushOutbox {
  record(entry: {
    id: string;
    userId: string;
    deviceId: string;
    payload: PushPayload;
    status: 'sent' | 'failed';
    error: string | null;
  }): Promise<void>;
}

/**
 * The default transport: nothing leaves the machine. Each push becomes a notification_outbox row and a log
 * line, so the whole flow (devices, skips, payload, language) can be tried without a Firebase project.
 */
export class LogPushTransport implements PushTransport {
  readonly name = 'log';

  constructor(
    private readonly outbox: PushOutbox,
    private readonly log: PushLogger,
  ) {}

  async send(message: PushMessage): Promise<PushResult> {
    const { userId, deviceId, payload } = message;
    try {
      await this.outbox.record({ id: newId(), userId, deviceId, payload, status: 'sent', error: null });
    } catch (error) {
      this.log.error({ err: error, userId, deviceId }, 'push outbox write failed');
      return { status: 'failed', error: 'The push could not be recorded.' };
    }
    this.log.info(
      // The title says which message it was; the body and the token stay out of the log.
      { userId, deviceId, pushToken: pushTokenHint(message.pushToken), title: payload.title },
      'push recorded (log transport)',
    );
    return { status: 'sent' };
  }
}
