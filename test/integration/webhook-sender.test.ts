import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { WebhookSender } from '../../src/modules/webhooks/sender.js';
import { WebhookReceiver } from '../helpers/webhook-receiver.js';

const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';

describe('WebhookSender', () => {
  let receiver: WebhookReceiver;
  const delivery = (url: string) => ({
    url,
    eventId: crypto.randomUUID(),
    body: '{"type":"user.deleted"}',
    secrets: [SECRET],
  });

  beforeAll(async () => {
    receiver = await WebhookReceiver.start();
    receiver.secrets = [SECRET];
  });
  afterAll(async () => {
    await receiver?.close();
  });
  beforeEach(() => {
    receiver.requests.length = 0;
  });

  it('refuses a loopback target at delivery without WEBHOOK_ALLOW_PRIVATE, before connecting', async () => {
    const sent = await new WebhookSender(false).send(delivery(receiver.url.replace('http:', 'https:')));
    expect(sent).toEqual({
      error:
        '127.0.0.1 is a private, loopback or link-local address (allowed only with WEBHOOK_ALLOW_PRIVATE=true)',
    });
    const plain = await new WebhookSender(false).send(delivery(receiver.url));
    expect(plain.error).toMatch(/^http is not allowed/);
    expect(receiver.requests).toEqual([]);
  });

  it('refuses a name that resolves to a private address at the attempt', async () => {
    const sender = new WebhookSender(false, async () => [{ address: '169.254.169.254', family: 4 }]);
    expect((await sender.send(delivery('https://metadata.example.com/'))).error).toMatch(
      /^metadata\.example\.com resolves to 169\.254\.169\.254/,
    );
  });

  it('connects to the address it checked, never looking the name up again', async () => {
    let lookups = 0;
    // `hooks.invalid` exists only in this lookup: the request reaches the receiver only through the pinned address.
    const sender = new WebhookSender(true, async () => {
      lookups++;
      return [{ address: '127.0.0.1', family: 4 }];
    });
    const port = new URL(receiver.url).port;
    const sent = await sender.send(delivery(`http://hooks.invalid:${port}/hooks`));
    expect(sent).toEqual({ statusCode: 200 });
    expect(lookups).toBe(1);
    expect(receiver.requests[0]?.verifiedBy).toEqual([true]);
  });

  it('takes a 2xx whose body never ends as delivered when the time is up', async () => {
    receiver.answer = () => (response) => {
      response.writeHead(200);
      response.write('working on it');
    };
    try {
      expect(await new WebhookSender(true, undefined, 200).send(delivery(receiver.url))).toEqual({
        statusCode: 200,
      });
    } finally {
      receiver.answer = () => 200;
    }
  });

  it('gives up on a receiver that does not answer within the timeout', async () => {
    receiver.answer = () => () => undefined;
    try {
      const sent = await new WebhookSender(true, undefined, 200).send(delivery(receiver.url));
      expect(sent).toEqual({ error: 'timed out after 0.2 s' });
    } finally {
      receiver.answer = () => 200;
    }
  });

  it('keeps one connection for the attempts to one checked address', async () => {
    const sender = new WebhookSender(true);
    const before = receiver.connections;
    try {
      for (let i = 0; i < 3; i++)
        expect(await sender.send(delivery(receiver.url))).toEqual({ statusCode: 200 });
      expect(receiver.connections - before).toBe(1);
    } finally {
      sender.close();
    }
  });

  it('sends once more on a new connection when a kept one breaks before any answer', async () => {
    const sender = new WebhookSender(true);
    const before = receiver.connections;
    let answered = 0;
    // The second request, on the kept connection, finds it closed: as when a receiver closes an idle one
    // just as the attempt takes it.
    receiver.answer = () => (answered++ === 1 ? (response) => response.socket?.destroy() : 200);
    try {
      expect(await sender.send(delivery(receiver.url))).toEqual({ statusCode: 200 });
      const second = delivery(receiver.url);
      expect(await sender.send(second)).toEqual({ statusCode: 200 });
      expect(receiver.of(second.eventId)).toHaveLength(2);
      expect(receiver.connections - before).toBe(2);
    } finally {
      receiver.answer = () => 200;
      sender.close();
    }
  });
});
