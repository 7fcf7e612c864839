import { connect, createServer, type Server, type Socket } from 'node:net';

/**
 * A TCP proxy on 127.0.0.1 in front of a real server (PostgreSQL, Redis, S3) that can be frozen: while
 * frozen it forwards nothing in either direction and keeps every connection open, as a SIGSTOPped server
 * or a dead network path would. It counts the chunks clients send while frozen (the attempts that hang).
 */
export interface FreezingProxy {
  port: number;
  freeze(): void;
  thaw(): void;
  /** Chunks received from clients while frozen. */
  attemptsWhileFrozen(): number;
  close(): Promise<void>;
}

export async function startFreezingProxy(
  targetPort: number,
  targetHost = '127.0.0.1',
): Promise<FreezingProxy> {
  let frozen = false;
  let attempts = 0;
  const sockets = new Set<Socket>();
  const held: (() => void)[] = [];
  const forward = (from: Socket, to: Socket, counts: boolean) => {
    from.on('data', (chunk) => {
      if (!frozen) {
        to.write(chunk);
        return;
      }
      if (counts) attempts++;
      held.push(() => to.write(chunk));
    });
  };
  const server: Server = createServer((client) => {
    const upstream = connect(targetPort, targetHost);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('error', () => {});
      socket.on('close', () => {
        sockets.delete(socket);
        client.destroy();
        upstream.destroy();
      });
    }
    forward(client, upstream, true);
    forward(upstream, client, false);
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
    thaw: () => {
      frozen = false;
      for (const write of held.splice(0)) write();
    },
    attemptsWhileFrozen: () => attempts,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
