import { createHmac } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { checkTargetUrl, type HostLookup, resolveTarget } from './address-guard.js';
import { TargetRefusedError } from './errors.js';
import { PinnedAgents } from './pinned-agents.js';

/** A delivery attempt waits at most this long, resolution and connection included (WEBHOOK_TIMEOUT). */
export const DELIVERY_TIMEOUT_MS = 10_000;
/** At most this much of a response is read: a receiver's answer is a status, not a download. */
export const RESPONSE_READ_LIMIT = 64 * 1024;

/** One signed request: what an event becomes for one endpoint. */
export interface SignedDelivery {
  url: string;
  /** The event's id: the `webhook-id` of every attempt and every replay. */
  eventId: string;
  /** The body, `{"type","timestamp","data"}`, exactly as signed. */
  body: string;
  /** The endpoint's `whsec_` secrets that sign: the current one, and the previous one during a rotation. */
  secrets: string[];
  /** The delivery span's W3C `traceparent`, sent as that header (lib/tracing.ts); absent when tracing is off. */
  traceparent?: string | undefined;
}

/** How an attempt ended: a status (2xx = delivered), or an error before any status (refused, timed out). */
export type AttemptOutcome =
  | { statusCode: number; error?: undefined }
  | { statusCode?: undefined; error: string };

/**
 * The Standard Webhooks headers: each secret (`whsec_` and the base64 of the key) signs `id.timestamp.body`
 * with HMAC-SHA256, written `v1,` and the base64 of the MAC; signatures are space-separated. Node's own HMAC
 * rather than the `standardwebhooks` package's signer, a SHA-256 written in JavaScript: every delivery is
 * signed. The tests verify what this writes with that package.
 */
export function signatureHeaders(delivery: SignedDelivery, now: Date): Record<string, string> {
  const timestamp = String(Math.floor(now.getTime() / 1000));
  const signed = `${delivery.eventId}.${timestamp}.${delivery.body}`;
  return {
    'webhook-id': delivery.eventId,
    'webhook-timestamp': timestamp,
    'webhook-signature': delivery.secrets
      .map((secret) => {
        const key = Buffer.from(secret.startsWith('whsec_') ? secret.slice(6) : secret, 'base64');
        return `v1,${createHmac('sha256', key).update(signed).digest('base64')}`;
      })
      .join(' '),
  };
}

/**
 * Sends signed deliveries over HTTP(S): the target checked after DNS resolution at every attempt and the
 * connection pinned to the checked address; redirects never followed (a 3xx is a failed attempt); at most
 * RESPONSE_READ_LIMIT bytes of the answer read; `timeoutMs` for the whole attempt.
 */
export class WebhookSender {
  readonly #agents = new PinnedAgents();

  constructor(
    private readonly allowPrivate: boolean,
    private readonly lookup?: HostLookup,
    readonly timeoutMs = DELIVERY_TIMEOUT_MS,
  ) {}

  /** Closes the kept-alive connections (at shutdown). */
  close(): void {
    this.#agents.close();
  }

  /**
   * One attempt, bounded by a deadline of its own, or by `signal`. Its own deadline is a timer cleared as the
   * attempt ends: `AbortSignal.timeout` would leave a timer and a finalization entry behind every delivery
   * for the whole timeout, a cost every sign-up and login pays under load.
   */
  async send(delivery: SignedDelivery, signal?: AbortSignal): Promise<AttemptOutcome> {
    if (signal !== undefined) return this.#send(delivery, signal);
    const deadline = new AbortController();
    const timer = setTimeout(
      () => deadline.abort(new DOMException('The attempt timed out', 'TimeoutError')),
      this.timeoutMs,
    );
    try {
      return await this.#send(delivery, deadline.signal);
    } finally {
      clearTimeout(timer);
    }
  }

  async #send(delivery: SignedDelivery, signal: AbortSignal): Promise<AttemptOutcome> {
    const now = new Date();
    try {
      const url = checkTargetUrl(delivery.url, this.allowPrivate);
      const target = await withSignal(resolveTarget(url, this.allowPrivate, this.lookup), signal);
      // The socket goes to the address just checked: no second lookup can answer differently.
      const pinned: LookupFunction = (_hostname, options, callback) => {
        if (options.all) callback(null, [target]);
        else callback(null, target.address, target.family);
      };
      const agent = this.#agents.agentFor(url, target);
      const headers = signatureHeaders(delivery, now);
      if (delivery.traceparent !== undefined) headers.traceparent = delivery.traceparent;
      const statusCode = await this.post(url, delivery, headers, { agent, lookup: pinned, signal }).catch(
        // A kept-alive connection the receiver closed as this attempt took it: once more, on a new one.
        (error: unknown) => {
          if (!(error instanceof StaleConnectionError)) throw error;
          return this.post(url, delivery, headers, { agent, lookup: pinned, signal });
        },
      );
      return { statusCode };
    } catch (error) {
      if (error instanceof TargetRefusedError) return { error: error.message };
      if (signal.aborted) return { error: `timed out after ${this.timeoutMs / 1000} s` };
      const code = (error as NodeJS.ErrnoException).code;
      return { error: code ?? (error as Error).message };
    }
  }

  private post(
    url: URL,
    delivery: SignedDelivery,
    headers: Record<string, string>,
    connection: { agent: http.Agent; lookup: LookupFunction; signal: AbortSignal },
  ): Promise<number> {
    const client = url.protocol === 'https:' ? https : http;
    return new Promise((resolve, reject) => {
      // Once the status has come, it is the answer: a body that stalls or breaks off changes nothing.
      let status: number | undefined;
      const fail = (error: Error) => {
        if (status !== undefined) return resolve(status);
        const code = (error as NodeJS.ErrnoException).code;
        const stale = request.reusedSocket && (code === 'ECONNRESET' || code === 'EPIPE');
        reject(stale ? new StaleConnectionError() : error);
      };
      const request = client.request(
        url,
        {
          method: 'POST',
          // The agent's connections all go to the address just checked (pinned-agents.ts); a new one is
          // opened through the pinned lookup, never a second resolution.
          ...connection,
          headers: {
            ...headers,
            'content-type': 'application/json',
            'content-length': String(Buffer.byteLength(delivery.body)),
            'user-agent': 'accounts-webhooks',
          },
        },
        (response) => {
          status = response.statusCode ?? 0;
          let read = 0;
          response.on('data', (chunk: Buffer) => {
            read += chunk.length;
            // Enough: the status is what counts, and a receiver must not make us hold its whole answer.
            if (read >= RESPONSE_READ_LIMIT) {
              response.destroy();
              resolve(status ?? 0);
            }
          });
          response.on('end', () => resolve(status ?? 0));
          response.on('error', fail);
        },
      );
      request.on('error', fail);
      request.end(delivery.body);
    });
  }
}

/** A reused connection broke before any answer: the request never reached the receiver's handler. */
class StaleConnectionError extends Error {}

function withSignal<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise((resolve, reject) => {
    const abort = () => reject(signal.reason);
    if (signal.aborted) abort();
    signal.addEventListener('abort', abort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', abort));
  });
}
