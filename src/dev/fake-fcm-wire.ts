import type { IncomingMessage, ServerResponse } from 'node:http';

/** The wire format of the fake FCM (`fake-fcm.ts`): Google's JSON answers and error bodies. */

/** What the fake answers to a send: FCM's success and the failures the service must handle. */
export type FakeFcmBehaviour =
  | 'ok'
  /** Accepts the message, after SLOW_ANSWER_MS (fake-fcm.ts): lets a test see how many sends overlap. */
  | 'slow'
  | 'unregistered'
  | 'invalid-argument'
  | 'server-error'
  | 'unauthenticated'
  | 'stall';

const MAX_BODY_BYTES = 64 * 1024;

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=UTF-8' });
  res.end(JSON.stringify(body));
}

export function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) req.destroy(new Error('body too large'));
      else chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

/** FCM HTTP v1's error body (google.rpc.Status with an FcmError detail). */
export function fcmError(code: number, status: string, message: string, errorCode?: string, field?: string) {
  const details: Record<string, unknown>[] = [];
  if (errorCode) details.push({ '@type': 'type.googleapis.com/google.firebase.fcm.v1.FcmError', errorCode });
  if (field) {
    details.push({
      '@type': 'type.googleapis.com/google.rpc.BadRequest',
      fieldViolations: [{ field, description: 'Invalid registration token' }],
    });
  }
  return { error: { code, message, status, ...(details.length > 0 ? { details } : {}) } };
}

export const FAILURES: Record<Exclude<FakeFcmBehaviour, 'ok' | 'slow' | 'stall'>, [number, unknown]> = {
  unregistered: [404, fcmError(404, 'NOT_FOUND', 'Requested entity was not found.', 'UNREGISTERED')],
  'invalid-argument': [
    400,
    fcmError(
      400,
      'INVALID_ARGUMENT',
      'The registration token is not a valid FCM registration token',
      'INVALID_ARGUMENT',
      'message.token',
    ),
  ],
  'server-error': [500, fcmError(500, 'INTERNAL', 'Internal error encountered.', 'INTERNAL')],
  unauthenticated: [401, fcmError(401, 'UNAUTHENTICATED', 'Request had invalid authentication credentials.')],
};
