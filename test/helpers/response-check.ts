import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import type { FastifyInstance } from 'fastify';
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
