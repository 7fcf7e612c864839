import type { PushConfig } from '../config/push.js';
import { FcmAccessTokens } from './fcm-access-token.js';
import { FcmPushTransport } from './fcm-transport.js';
import { LogPushTransport, type PushOutbox } from './log-transport.js';
import type { PushLogger, PushTransport } from './transport.js';

/** The transport PUSH_TRANSPORT names; the outbox is only written by `log`. */
export function createPushTransport(config: PushConfig, outbox: PushOutbox, log: PushLogger): PushTransport {
  if (config.transport === 'log') return new LogPushTransport(outbox, log);
  const tokens = new FcmAccessTokens({
    serviceAccount: config.serviceAccount,
    tokenUrl: config.tokenUrl,
    timeoutMs: config.timeoutMs,
  });
  return new FcmPushTransport(
    { projectId: config.projectId, endpoint: config.endpoint, timeoutMs: config.timeoutMs },
    tokens,
    log,
  );
}
