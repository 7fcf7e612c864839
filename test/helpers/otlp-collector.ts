import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One span as the collector decoded it from OTLP/HTTP JSON. */
export interface CollectedSpan {
  service: string;
  traceId: string;
  spanId: string;
  /** '' for a root span. */
  parentSpanId: string;
  name: string;
  /** 1 internal, 2 server, 3 client (OTLP's SpanKind numbers). */
  kind: number;
  attributes: Record<string, string | number | boolean>;
  /** 0 unset, 1 ok, 2 error. */
  status: number;
}

/** OTLP's JSON AnyValue, as far as our spans use it. */
interface AnyValue {
  stringValue?: string;
  intValue?: string | number;
  doubleValue?: number;
  boolValue?: boolean;
}

interface ExportRequest {
  resourceSpans?: {
    resource?: { attributes?: { key: string; value: AnyValue }[] };
    scopeSpans?: {
      spans?: {
        traceId: string;
        spanId: string;
        parentSpanId?: string;
        name: string;
        kind?: number;
        attributes?: { key: string; value: AnyValue }[];
        status?: { code?: number };
      }[];
    }[];
  }[];
}

function decoded(value: AnyValue): string | number | boolean {
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.intValue !== undefined) return Number(value.intValue);
  if (value.doubleValue !== undefined) return value.doubleValue;
  return value.boolValue ?? '';
}

function attributesOf(
  list: { key: string; value: AnyValue }[] = [],
): Record<string, string | number | boolean> {
  return Object.fromEntries(list.map(({ key, value }) => [key, decoded(value)]));
}

/**
 * An OpenTelemetry collector of our own on 127.0.0.1: takes OTLP/HTTP JSON at POST /v1/traces (what
 * @opentelemetry/exporter-trace-otlp-http sends), decodes each span, and answers as a collector does. Anything
 * else (another path, protobuf) is answered 415 and counted in `refused`, so a test sees a wrong exporter.
 */
export class OtlpCollector {
  readonly spans: CollectedSpan[] = [];
  refused = 0;
  readonly #server = createServer((request, response) => void this.#handle(request, response));
  #waiters: { test: () => boolean; resolve: () => void }[] = [];

  static async start(): Promise<OtlpCollector> {
    const collector = new OtlpCollector();
    await new Promise<void>((resolve) => collector.#server.listen(0, '127.0.0.1', resolve));
    return collector;
  }

  /** The endpoint's base, as OTEL_EXPORTER_OTLP_ENDPOINT takes it. */
  get url(): string {
    return `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}`;
  }

  /** Resolves with the spans once `test` holds of those received (checked as each export comes in). */
  until(test: (spans: CollectedSpan[]) => boolean): Promise<CollectedSpan[]> {
    return new Promise((resolve) => {
      const check = () => test(this.spans);
      if (check()) resolve(this.spans);
      else this.#waiters.push({ test: check, resolve: () => resolve(this.spans) });
    });
  }

  /** The spans of one trace. */
  trace(traceId: string): CollectedSpan[] {
    return this.spans.filter((span) => span.traceId === traceId);
  }

  async close(): Promise<void> {
    this.#server.closeAllConnections();
    await new Promise((resolve) => this.#server.close(resolve));
  }

  async #handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const json = String(request.headers['content-type']).startsWith('application/json');
    if (request.method !== 'POST' || request.url !== '/v1/traces' || !json) {
      this.refused++;
      response.writeHead(415).end();
      return;
    }
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as ExportRequest;
    for (const resourceSpans of body.resourceSpans ?? []) {
      const service = String(attributesOf(resourceSpans.resource?.attributes)['service.name'] ?? '');
      for (const scope of resourceSpans.scopeSpans ?? []) {
        for (const span of scope.spans ?? []) {
          this.spans.push({
            service,
            traceId: span.traceId,
            spanId: span.spanId,
            parentSpanId: span.parentSpanId ?? '',
            name: span.name,
            kind: span.kind ?? 0,
            attributes: attributesOf(span.attributes),
            status: span.status?.code ?? 0,
          });
        }
      }
    }
    response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    const ready = this.#waiters.filter((waiter) => waiter.test());
    this.#waiters = this.#waiters.filter((waiter) => !ready.includes(waiter));
    for (const waiter of ready) waiter.resolve();
  }
}
