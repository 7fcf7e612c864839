import { connect, createServer, type Server, type Socket } from 'node:net';

/**
 * A TCP proxy on 127.0.0.1 in front of a real server (PostgreSQL, Redis, S3) that can be frozen: while
 * frozen it forwards nothing in either direction and keeps every connection open, as a SIGSTOPped server
 * or a dead network path would. It counts the chunks clients send while frozen (the attempts that hang).
 * What a client sent before it gave up and closed is still delivered when thawed, then the connection is
 * closed, as TCP delivers data sent before a FIN: a resumed server runs what was waiting in its socket.
 */
export interface FreezingProxy {
  port: number;
  freeze(): void;
  /**
   * Freezes when a chunk a client sends contains `text`. `all`: that chunk and everything after it is
   * held, on every connection, new ones too (the server stopped just as the chunk arrived). `answers`: the
   * chunk goes through, and that connection's answers are held (the statement runs, its answer is lost).
   * `requests`: that chunk and that connection's later ones are held (the statement never arrives).
   */
  freezeOn(text: string, scope: 'all' | 'answers' | 'requests'): void;
  thaw(): void;
  /** Chunks received from clients while frozen. */
  attemptsWhileFrozen(): number;
  close(): Promise<void>;
}

interface Link {
  client: Socket;
  upstream: Socket;
  requestsFrozen: boolean;
  answersFrozen: boolean;
  heldRequests: Buffer[];
  heldAnswers: Buffer[];
  clientClosed: boolean;
}

export async function startFreezingProxy(
  targetPort: number,
  targetHost = '127.0.0.1',
): Promise<FreezingProxy> {
  let frozen = false;
  let attempts = 0;
  let trigger: { text: string; scope: 'all' | 'answers' | 'requests' } | undefined;
  const links = new Set<Link>();
  const sockets = new Set<Socket>();

  const onRequest = (link: Link, chunk: Buffer) => {
    if (trigger && chunk.includes(trigger.text)) {
      if (trigger.scope === 'all') frozen = true;
      else if (trigger.scope === 'answers') link.answersFrozen = true;
      else link.requestsFrozen = true;
      trigger = undefined;
    }
    if (!frozen && !link.requestsFrozen) {
      link.upstream.write(chunk);
      return;
    }
    attempts++;
    link.heldRequests.push(chunk);
  };
  const onAnswer = (link: Link, chunk: Buffer) => {
    if (!frozen && !link.answersFrozen) link.client.write(chunk);
    else link.heldAnswers.push(chunk);
  };

  const server: Server = createServer((client) => {
    const upstream = connect(targetPort, targetHost);
    const link: Link = {
      client,
      upstream,
      requestsFrozen: false,
      answersFrozen: false,
      heldRequests: [],
      heldAnswers: [],
      clientClosed: false,
    };
    links.add(link);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('error', () => {});
    }
    client.on('close', () => {
      sockets.delete(client);
      link.clientClosed = true;
      // What it sent while frozen is delivered on thaw; only then does the server see the connection end.
      if (link.heldRequests.length === 0) {
        upstream.end();
        links.delete(link);
      }
    });
    upstream.on('close', () => {
      sockets.delete(upstream);
      client.destroy();
      links.delete(link);
    });
    client.on('data', (chunk: Buffer) => onRequest(link, chunk));
    upstream.on('data', (chunk: Buffer) => onAnswer(link, chunk));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return {
    port: address.port,
    freeze: () => {
      frozen = true;
      attempts = 0;
    },
    freezeOn: (text, scope) => {
      attempts = 0;
      trigger = { text, scope };
    },
    thaw: () => {
      frozen = false;
      trigger = undefined;
      for (const link of [...links]) {
        link.requestsFrozen = false;
        link.answersFrozen = false;
        for (const chunk of link.heldRequests.splice(0)) link.upstream.write(chunk);
        for (const chunk of link.heldAnswers.splice(0)) link.client.write(chunk);
        if (link.clientClosed) {
          link.upstream.end();
          links.delete(link);
        }
      }
    },
    attemptsWhileFrozen: () => attempts,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
