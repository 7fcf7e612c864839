import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import type { JsonSchema } from '../../src/validation/types.js';

const ajv = new Ajv2020({ allErrors: true, strict: false });
addFormats.default(ajv);

/**
 * The declared schema made strict: no object may carry a property it does not declare. The serializer drops
 * such a property silently (that is its job); here it means a handler returned something its schema does not
 * say, which is a bug either way.
 */
export function strictSchema(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(strictSchema);
  if (!schema || typeof schema !== 'object') return schema;
  const copy: JsonSchema = Object.fromEntries(
    Object.entries(schema).map(([key, value]) => [
      key,
      key === 'properties'
        ? Object.fromEntries(
            Object.entries(value as JsonSchema).map(([name, inner]) => [name, strictSchema(inner)]),
          )
        : strictSchema(value),
    ]),
  );
  if (copy.properties && copy.additionalProperties === undefined) copy.additionalProperties = false;
  return copy;
}

const compiled = new WeakMap<object, ReturnType<typeof ajv.compile>>();

/** Checks `body` against `schema` strictly; the list of what does not match (empty when it does). */
export function schemaMismatches(schema: object, body: unknown): string[] {
  let validate = compiled.get(schema);
  if (!validate) {
    validate = ajv.compile(strictSchema(schema) as object);
    compiled.set(schema, validate);
  }
  if (validate(body)) return [];
  return (validate.errors ?? []).map((error) => `${error.instancePath || '/'} ${error.message ?? ''}`);
}

/** What the check found wrong, per app: the test helper fails the suite on any. */
export type ResponseMismatch = { route: string; errors: string[]; body: unknown };

/**
 * Checks every 200 the app sends against the route's declared response schema, before it is serialized (so a
 * property the serializer would drop is caught too). A mismatch is recorded and turned into a 500, so the
 * test that made the request fails where it stands, and the suite fails after it with the details.
 */
export function checkResponsesAgainstSchemas(app: FastifyInstance): ResponseMismatch[] {
  const mismatches: ResponseMismatch[] = [];
  app.addHook('preSerialization', async (request, reply, payload) => {
    // A success is 200, or 202 on a route that declares it (the declared schema is keyed by its status).
    if (reply.statusCode !== 200 && reply.statusCode !== 202) return payload;
    const schema = (request.routeOptions.schema?.response as Record<string, object> | undefined)?.[
      reply.statusCode
    ];
    if (!schema) return payload;
    const errors = schemaMismatches(schema, JSON.parse(JSON.stringify(payload)));
    if (errors.length > 0) {
      const route = `${request.method} ${request.routeOptions.url}`;
      mismatches.push({ route, errors, body: payload });
      throw new Error(`${route}: the response does not match its declared schema: ${errors.join('; ')}`);
    }
    return payload;
  });
  return mismatches;
}

export type Success = { content: { 'application/json': { schema: object; example: unknown } } };
/** A success is a 200, or a 202 where the request only starts the work (user/export). */
export type SuccessOperation = { responses: { '200'?: Success; '202'?: Success } };
export type SuccessDocument = { paths: Record<string, Record<string, SuccessOperation>> };

/** The shape of a JSON value: what an example must share with a real response. */
export function shapeOf(value: unknown): unknown {
  if (value === null) return 'null';
  if (Array.isArray(value)) return value.length === 0 ? [] : [shapeOf(value[0])];
  if (typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value as Record<string, unknown>)
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([key, inner]) => [key, shapeOf(inner)]),
    );
  }
  return typeof value;
}

export type Call = () => Promise<LightMyRequestResponse>;

/**
 * Calls `operation` (`POST /path/{id}`), checks its real success against `document` (schema, and the example's
 * shape) and adds it to `exercised`; returns the response's data.
 */
export async function checkDocumentedResponse(
  document: SuccessDocument,
  exercised: Set<string>,
  operation: string,
  call: Call,
  status = 200,
): Promise<Record<string, unknown>> {
  const [method, path] = operation.split(' ') as [string, string];
  const responses = document.paths[path]?.[method.toLowerCase()]?.responses;
  const declared = responses?.[String(status) as '200' | '202']?.content['application/json'];
  expect(declared, `${operation} is documented`).toBeDefined();
  const res = await call();
  const body = res.json() as { data: Record<string, unknown> };
  expect(res.statusCode, `${operation}: ${res.body}`).toBe(status);
  const { schema, example } = declared as { schema: object; example: unknown };
  expect(schemaMismatches(schema, body), `${operation} matches its schema`).toEqual([]);
  expect(schemaMismatches(schema, example), `${operation}'s example matches its schema`).toEqual([]);
  expect(shapeOf(example), `${operation}'s example has the real response's shape`).toEqual(shapeOf(body));
  exercised.add(operation);
  return body.data;
}
