import type { SmsConfig } from '../config/sms.js';
import { maskPhone } from '../lib/phone-number.js';
import { noTracing, type Tracing } from '../lib/tracing.js';
import { sendSolapiMessage } from './solapi.js';

/** One text message as a transport takes it. */
export interface OutgoingSms {
  id: string;
  kind: string;
  /** E.164. */
  to: string;
  text: string;
}

export interface SmsLogger {
  info(details: object, message: string): void;
  warn(details: object, message: string): void;
}

/** Delivers one message or throws; answers the gateway's id of it. Nothing here touches the database. */
export interface SmsTransport {
  readonly name: 'log' | 'solapi';
  send(message: OutgoingSms): Promise<{ id: string }>;
}

/**
 * Development without SOLAPI: the message is written to the log, code included, so a developer can sign in
 * (SmsConfig.logCodes; never in production, where a code in the log would be a way in for its readers).
 */
export function logSmsTransport(logger: SmsLogger): SmsTransport {
  return {
    name: 'log',
    send: async (message) => {
      logger.info(
        { sms_id: message.id, kind: message.kind, to: maskPhone(message.to), text: message.text },
        'sms (development: not sent)',
      );
      return { id: 'log' };
    },
  };
}

/**
 * SOLAPI's transport, or the log's in development, or none: the phone routes then answer 503. Each SOLAPI call
 * is an `sms send` span when tracing is on (lib/tracing.ts).
 */
export function createSmsTransport(
  config: SmsConfig,
  logger: SmsLogger,
  tracing: Tracing = noTracing,
): SmsTransport | undefined {
  const { solapi } = config;
  if (solapi) {
    return {
      name: 'solapi',
      send: (message) =>
        tracing.span('sms send', { 'sms.provider': 'solapi', 'sms.kind': message.kind }, () =>
          sendSolapiMessage(solapi, message),
        ),
    };
  }
  return config.logCodes ? logSmsTransport(logger) : undefined;
}
