import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

/** One request the receiver got, checked against each secret it knows. */
export interface ReceivedWebhook {
  id: string;
  timestamp: string;
  signature: string;
  body: { type: string; timestamp: string; data: Record<string, unknown> };
  /** Per secret given to `verifyWith`, in order: whether `standardwebhooks` verified the request with it. */
  verifiedBy: boolean[];
  /** When the request had come in whole (Date.now()). */
  receivedAt: number;
  /** The W3C `traceparent` header, sent when the service traces (docs/tracing.md). */
  traceparent: string | undefined;
}

/** What the receiver answers a request: a status, or a handler that writes the response itself. */
export type ReceiverAnswer = number | ((response: ServerResponse) => void);

/**
 * A webhook receiver on 127.0.0.1, as one of the app's other services would run it: it verifies every
 * request with the `standardwebhooks` package under each secret it was given, records it, and answers what
 * the test says (200 unless told). `received(n)` resolves once n requests have come in.
 */
export class WebhookReceiver {
  readonly requests: ReceivedWebhook[] = [];
  secrets: string[] = [];
  answer: (request: ReceivedWebhook) => ReceiverAnswer = () => 200;
  readonly #server = createServer((request, response) => void this.#handle(request, response)).on(
    'connection',
    () => this.connections++,
  );
  /** The connections opened to the receiver so far. */
  connections = 0;
  #waiters: { count: number; resolve: () => void }[] = [];

  static async start(): Promise<WebhookReceiver> {
    const receiver = new WebhookReceiver();
    await new Promise<void>((resolve) => receiver.#server.listen(0, '127.0.0.1', resolve));
    return receiver;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}/hooks`;
  }

  /** Resolves once `count` requests in all have come in. */
  received(count: number): Promise<ReceivedWebhook[]> {
    return new Promise((resolve) => {
      const check = () => resolve(this.requests.slice(0, count));
      if (this.requests.length >= count) check();
      else this.#waiters.push({ count, resolve: check });
    });
  }

  /** The requests for one event id (every attempt and replay of it). */
  of(eventId: string): ReceivedWebhook[] {
    return this.requests.filter((request) => request.id === eventId);
  }

  async close(): Promise<void> {
    this.#server.closeAllConnections();
    await new Promise((resolve) => this.#server.close(resolve));
  }

  async #handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const payload = Buffer.concat(chunks).toString('utf8');
    const headers = {
      'webhook-id': String(request.headers['webhook-id']),
      'webhook-timestamp': String(request.headers['webhook-timestamp']),
      'webhook-signature': String(request.headers['webhook-signature']),
    };
    const verifiedBy = this.secrets.map((secret) => {
      try {
        new Webhook(secret).verify(payload, headers);
        return true;
      } catch {
        return false;
      }
    });
    const received: ReceivedWebhook = {
      id: headers['webhook-id'],
      timestamp: headers['webhook-timestamp'],
      signature: headers['webhook-signature'],
      body: JSON.parse(payload) as ReceivedWebhook['body'],
      verifiedBy,
      receivedAt: Date.now(),
      traceparent: request.headers.traceparent as string | undefined,
    };
    const answer = this.answer(received);
    this.requests.push(received);
    if (typeof answer === 'number') response.writeHead(answer).end();
    else answer(response);
    const ready = this.#waiters.filter((waiter) => this.requests.length >= waiter.count);
    this.#waiters = this.#waiters.filter((waiter) => this.requests.length < waiter.count);
    for (const waiter of ready) waiter.resolve();
  }
}
