import type { PushPayload } from '../db/schema.js';

export type { PushPayload };

/** One push to one device. */
export interface PushMessage {
  userId: string;
  deviceId: string;
  pushToken: string;
  payload: PushPayload;
}

/**
 * What became of one push. `invalid_token`: the push service says this token no longer reaches any device
 * (uninstalled app, rotated token), so the caller should forget it; it is a failure from the user's side.
 */
export type PushResult =
  | { status: 'sent' }
  | { status: 'failed'; error: string }
  | { status: 'invalid_token'; error: string };

/**
 * A way of delivering pushes (`log`, `fcm`), chosen by PUSH_TRANSPORT. `send` never throws: every failure,
 * a timeout or a fault of ours included, is a result, so one bad device never fails the others' deliveries.
 */
export interface PushTransport {
  readonly name: string;
  send(message: PushMessage): Promise<PushResult>;
}

/** The log methods the transports use (pino's shape, so `app.log` fits). */
export interface PushLogger {
  info(details: object, message: string): void;
  warn(details: object, message: string): void;
  error(details: object, message: string): void;
}

/**
 * Enough of a push token to tell two apart in a log, never enough to use: a token is an address that, with
 * the project's credentials, reaches a person's phone.
 */
export function pushTokenHint(pushToken: string): string {
  return `${pushToken.slice(0, 6)}…`;
}
