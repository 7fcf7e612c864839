import { AccessTokenError, type FcmAccessTokens } from './fcm-access-token.js';
import { fetchFailure, readJsonBody } from './http.js';
import {
  type PushLogger,
  type PushMessage,
  type PushResult,
  type PushTransport,
  pushTokenHint,
} from './transport.js';

export interface FcmTransportOptions {
  projectId: string;
  /** Base URL of the FCM API, without a trailing slash. */
  endpoint: string;
  timeoutMs: number;
}

/** What an FCM HTTP v1 error body says: `{"error": {code, message, status, details: [...]}}`. */
interface FcmErrorBody {
  status: string | undefined;
  errorCode: string | undefined;
  /** `message.token` when the request's token field is what FCM refused. */
  fields: string[];
  message: string;
}

function fcmError(json: unknown): FcmErrorBody {
  const error = ((json as { error?: unknown } | undefined)?.error ?? {}) as Record<string, unknown>;
  const details = Array.isArray(error.details) ? (error.details as Record<string, unknown>[]) : [];
  const errorCode = details.find((detail) => typeof detail?.errorCode === 'string')?.errorCode as
    | string
    | undefined;
  const fields = details.flatMap((detail) =>
    Array.isArray(detail?.fieldViolations)
      ? (detail.fieldViolations as { field?: unknown }[]).map((violation) => String(violation?.field))
      : [],
  );
  return {
    status: typeof error.status === 'string' ? error.status : undefined,
    errorCode,
    fields,
    message: typeof error.message === 'string' ? error.message : '',
  };
}

/**
 * A 400 INVALID_ARGUMENT is about the token when FCM names the `message.token` field or says so in words;
 * otherwise it is about our payload, and the token must be kept.
 */
function refusesToken(error: FcmErrorBody): boolean {
  return error.fields.includes('message.token') || /registration token/i.test(error.message);
}

/**
 * Firebase Cloud Messaging HTTP v1: `POST {endpoint}/v1/projects/{id}/messages:send` with an OAuth access token
 * of the service account. Answers are mapped as FCM documents them:
 * - 404 UNREGISTERED, or 400 INVALID_ARGUMENT about the token → `invalid_token` (the caller drops it);
 * - 401 → the access token was refused (revoked, expired early): one fresh token and one retry;
 * - 429, 5xx, a timeout, an unreachable server, anything else → `failed`, with the reason.
 * SENDER_ID_MISMATCH (403) stays a plain failure: it means the token belongs to another Firebase project,
 * which is far more often our misconfiguration than the device's, and dropping tokens for it would wipe them all.
 */
export class FcmPushTransport implements PushTransport {
  readonly name = 'fcm';
  private readonly url: string;

  constructor(
    private readonly options: FcmTransportOptions,
    private readonly tokens: FcmAccessTokens,
    private readonly log: PushLogger,
  ) {
    this.url = `${options.endpoint}/v1/projects/${encodeURIComponent(options.projectId)}/messages:send`;
  }

  async send(message: PushMessage): Promise<PushResult> {
    let result: PushResult;
    try {
      result = await this.attempt(message, true);
    } catch (error) {
      // A fault of ours (a bug, not FCM): one device's failure, never the request's.
      this.log.error({ err: error, deviceId: message.deviceId }, 'push via FCM failed unexpectedly');
      return { status: 'failed', error: 'The push could not be sent.' };
    }
    if (result.status !== 'sent') {
      this.log.warn(
        {
          userId: message.userId,
          deviceId: message.deviceId,
          pushToken: pushTokenHint(message.pushToken),
          result: result.status,
          reason: result.error,
        },
        'push via FCM not delivered',
      );
    }
    return result;
  }

  private async attempt(message: PushMessage, mayRefresh: boolean): Promise<PushResult> {
    let accessToken: string;
    try {
      accessToken = await this.tokens.get();
    } catch (error) {
      if (error instanceof AccessTokenError) return { status: 'failed', error: error.message };
      throw error;
    }
    const { payload } = message;
    let response: Response;
    let json: unknown;
    try {
      response = await fetch(this.url, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${accessToken}`,
          'content-type': 'application/json; charset=utf-8',
          accept: 'application/json',
        },
        body: JSON.stringify({
          message: {
            token: message.pushToken,
            notification: { title: payload.title, body: payload.body },
            data: payload.data,
          },
        }),
        redirect: 'error',
        signal: AbortSignal.timeout(this.options.timeoutMs),
      });
      json = await readJsonBody(response);
    } catch (error) {
      return { status: 'failed', error: fetchFailure(error, 'FCM', this.options.timeoutMs) };
    }
    if (response.ok) return { status: 'sent' };
    const error = fcmError(json);
    const code = response.status;
    if (code === 401 && mayRefresh) {
      this.tokens.invalidate(accessToken);
      return this.attempt(message, false);
    }
    // Only the UNREGISTERED detail, not any 404: a wrong project id is a 404 too, and must not wipe tokens.
    if (code === 404 && error.errorCode === 'UNREGISTERED') {
      return {
        status: 'invalid_token',
        error: 'FCM says the push token is no longer registered (the app was removed or its token changed).',
      };
    }
    if (code === 400 && refusesToken(error)) {
      return { status: 'invalid_token', error: 'FCM refused the push token as invalid.' };
    }
    // Repeated to the client: only an FCM-style code (`INTERNAL`, `QUOTA_EXCEEDED`), never free text.
    const name = [error.errorCode, error.status].find((value) => value && /^[A-Z_]{1,64}$/.test(value));
    const label = `HTTP ${code}${name ? ` ${name}` : ''}`;
    if (code === 401) return { status: 'failed', error: `FCM refused our credentials (${label}).` };
    if (code === 429) return { status: 'failed', error: `FCM is rate-limiting this project (${label}).` };
    if (code >= 500) return { status: 'failed', error: `FCM is unavailable (${label}).` };
    return { status: 'failed', error: `FCM refused the push (${label}).` };
  }
}
