import type { FastifyInstance } from 'fastify';
import { expect } from 'vitest';

/** One operation of the service's own OpenAPI document, as far as the route suites read it. */
export interface DocumentedRoute {
  method: 'GET' | 'POST';
  /** Below the version segment, OpenAPI style: `/user/tokens/{id}/revoke`. */
  path: string;
  /** `required` for a bearer-only operation, `optional` when `{}` is among its security requirements. */
  auth: 'required' | 'optional' | 'none';
}

type Operation = { security?: Array<Record<string, unknown>> };
type Document = {
  servers: Array<{ variables: { version: { enum: string[] } } }>;
  paths: Record<string, Record<string, Operation>>;
};

function authOf(operation: Operation): DocumentedRoute['auth'] {
  const security = operation.security ?? [];
  if (security.length === 0) return 'none';
  return security.some((requirement) => Object.keys(requirement).length === 0) ? 'optional' : 'required';
}

/**
 * The endpoints and API versions the app itself documents at `/openapi.json`: the document is generated
 * from the same endpoint list the routes are registered from, so nothing here is a hand-written list.
 */
export async function documentedRoutes(
  app: FastifyInstance,
): Promise<{ versions: string[]; routes: DocumentedRoute[] }> {
  const res = await app.inject({ method: 'GET', url: '/openapi.json' });
  expect(res.statusCode).toBe(200);
  const document = res.json() as Document;
  const versions = document.servers[0]?.variables.version.enum ?? [];
  const routes = Object.entries(document.paths).flatMap(([path, operations]) =>
    Object.entries(operations).map(([method, operation]) => ({
      method: method.toUpperCase() as DocumentedRoute['method'],
      path,
      auth: authOf(operation),
    })),
  );
  return { versions, routes };
}

/**
 * Every `METHOD /url` the Fastify router answers (HEAD left out: Fastify adds it to each GET), read from
 * `printRoutes`, whose tree nests a route under the longest registered prefix it shares with another.
 */
export function registeredRoutes(app: FastifyInstance): string[] {
  const found: string[] = [];
  const stack: string[] = [];
  for (const line of app.printRoutes({ commonPrefix: false }).split('\n')) {
    const match = /^((?:│ {3}| {4})*)(?:├── |└── )(\S+)(?: \(([^)]*)\))?$/.exec(line);
    if (!match) continue;
    const depth = (match[1] ?? '').length / 4;
    const path = `${depth > 0 ? stack[depth - 1] : ''}${match[2]}`;
    stack.length = depth;
    stack.push(path);
    for (const method of (match[3] ?? '').split(',').map((m) => m.trim())) {
      if (method !== '' && method !== 'HEAD') found.push(`${method} ${path}`);
    }
  }
  return found;
}

/** A documented path with its parameters filled in (`{id}` → a well-formed id that names nothing). */
export function concretePath(version: string, path: string): string {
  return `/${version}${path.replace(/\{[A-Za-z_]+\}/g, '00000000-0000-4000-8000-000000000000')}`;
}
