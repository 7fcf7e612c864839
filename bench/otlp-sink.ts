import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A collector that takes OTLP/HTTP exports and keeps nothing: what tracing costs the service, not a backend. */
export interface OtlpSink {
  /** OTEL_EXPORTER_OTLP_ENDPOINT for the service. */
  url: string;
  /** Export requests received, and their bytes: a run whose service exported nothing measured nothing. */
  exports(): { requests: number; bytes: number };
  close(): Promise<void>;
}

export async function startOtlpSink(): Promise<OtlpSink> {
  let requests = 0;
  let bytes = 0;
  const server = createServer((request, response) => {
    request.on('data', (chunk: Buffer) => {
      bytes += chunk.length;
    });
    request.on('end', () => {
      requests++;
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    exports: () => ({ requests, bytes }),
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
