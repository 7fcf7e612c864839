import type { FastifyInstance } from 'fastify';
import { expect } from 'vitest';

export type Operation = {
  operationId: string;
  security?: unknown[];
  responses: Record<string, unknown>;
  requestBody?: { required: boolean; content: Record<string, { schema: Record<string, unknown> }> };
  parameters?: unknown[];
};
export type Document = {
  openapi: string;
  info: { version: string };
  servers: Array<{ url: string; variables: { version: { enum: string[]; default: string } } }>;
  paths: Record<string, Record<string, Operation>>;
  components: Record<string, Record<string, unknown>>;
};

/** GET /openapi.json, checked to be served as JSON. */
export async function fetchOpenApi(app: FastifyInstance): Promise<Document> {
  const res = await app.inject({ method: 'GET', url: '/openapi.json' });
  expect(res.statusCode).toBe(200);
  expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
  return res.json() as Document;
}

/** Every `$ref` in a document, depth first. */
export function refs(value: unknown, found: string[] = []): string[] {
  if (Array.isArray(value)) for (const item of value) refs(item, found);
  else if (value && typeof value === 'object') {
    for (const [key, inner] of Object.entries(value)) {
      if (key === '$ref' && typeof inner === 'string') found.push(inner);
      else refs(inner, found);
    }
  }
  return found;
}
