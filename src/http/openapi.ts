import { ruleListSchema } from '../validation/schema.js';
import type { JsonSchema } from '../validation/types.js';
import { type AnyEndpoint, restrictedWhileGuardianPending } from './endpoint.js';
import { ok, successEnvelopeSchema } from './envelope.js';
import { ERROR_CATALOGUE } from './error-catalogue.js';

const isFileSchema = (property: JsonSchema) =>
  property.format === 'binary' || (property.items as JsonSchema | undefined)?.format === 'binary';

/**
 * A body schema without its file fields (what a form or JSON body of the same route can carry), or undefined
 * when a file is required (such a route can only succeed with multipart).
 */
function withoutFileProperties(schema: JsonSchema): JsonSchema | undefined {
  const properties = schema.properties as Record<string, JsonSchema>;
  const files = Object.keys(properties).filter((name) => isFileSchema(properties[name] as JsonSchema));
  if (files.length === 0) return schema;
  const { required: allRequired, ...rest } = schema;
  const required = (allRequired as string[] | undefined) ?? [];
  if (required.some((name) => files.includes(name))) return undefined;
  return {
    ...rest,
    properties: Object.fromEntries(Object.entries(properties).filter(([name]) => !files.includes(name))),
    ...(required.length > 0 ? { required } : {}),
  };
}

const ERROR_DESCRIPTIONS: Record<number, string> = {
  401: 'Unauthorized: invalid credentials, an unlinked identity, or a missing/invalid token',
  403: "This action is unauthorized. / A legal guardian's consent is required (guardian_consent_required).",
  404: 'Not Found',
  409: 'Conflict: the account is scheduled for deletion, passkeys need a domain name, or the person has another account.',
  413: 'Payload Too Large',
  429: 'Too Many Attempts.',
  500: 'Failed to commit transaction. / Internal Server Error',
  502: 'Identity provider unavailable.',
  503: 'Service Unavailable',
};

const envelope = (data: Record<string, unknown>) => ({
  type: 'object',
  required: ['meta', 'data'],
  properties: { meta: { $ref: '#/components/schemas/Meta' }, data },
});

/** The names of a path's `:name` segments. */
function pathParameterNames(path: string): string[] {
  return [...path.matchAll(/:([A-Za-z_]+)/g)].map((match) => match[1] as string);
}

/** A 422 as the service renders it: each parameter with the first of the messages its schema lists. */
function validationExample(...schemas: JsonSchema[]): Record<string, unknown> {
  const data: Record<string, string[]> = {};
  for (const schema of schemas) {
    const properties = (schema.properties ?? {}) as Record<string, { 'x-messages'?: { en: string[] } }>;
    for (const [name, property] of Object.entries(properties)) {
      data[name] = (property['x-messages']?.en ?? []).slice(0, 1);
    }
  }
  const { status, type, message } = ERROR_CATALOGUE.validation_failed;
  return { meta: { code: status, error_type: type, error_message: message }, data };
}

export function operation(endpoint: AnyEndpoint): Record<string, unknown> {
  // Path parameters are fields of the rule list like any other; they are documented `in: path`, the rest in
  // the query string (GET) or the body.
  const inPath = new Set(pathParameterNames(endpoint.path));
  const pathSchema = ruleListSchema(
    Object.fromEntries(Object.entries(endpoint.rules).filter(([name]) => inPath.has(name))),
    { messages: true },
  );
  const schema = ruleListSchema(
    Object.fromEntries(Object.entries(endpoint.rules).filter(([name]) => !inPath.has(name))),
    { messages: true },
  );
  const success = endpoint.successStatus ?? 200;
  const responses: Record<string, unknown> = {
    [String(success)]: {
      description: success === 202 ? 'Accepted: the work goes on in the background' : 'OK',
      content: {
        'application/json': {
          schema: successEnvelopeSchema(endpoint.response, success),
          example: ok(endpoint.example, success),
        },
      },
    },
  };
  // An endpoint without parameters cannot fail validation (a service may still raise a 422: see `errors`).
  if (Object.keys(endpoint.rules).length > 0 || endpoint.errors?.includes(422)) {
    responses['422'] = {
      description:
        'Unprocessable Entity: `data` maps each failing parameter to its messages (every parameter lists the ' +
        'messages it can answer with; in Korean with `Accept-Language: ko`)',
      content: {
        'application/json': {
          schema: { $ref: '#/components/schemas/ValidationError' },
          example: validationExample(pathSchema, schema),
        },
      },
    };
  }
  const statuses = new Set([
    ...(endpoint.errors ?? []),
    ...(endpoint.auth !== 'none' ? [401] : []),
    ...(restrictedWhileGuardianPending(endpoint) ? [403] : []),
    500,
    503,
  ]);
  for (const status of [...statuses].sort()) {
    responses[String(status)] = {
      description: ERROR_DESCRIPTIONS[status] ?? 'Error',
      content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
    };
  }
  const op: Record<string, unknown> = {
    operationId: `${endpoint.method.toLowerCase()}${endpoint.path.replace(/[^A-Za-z0-9]+(.)?/g, (_, c: string | undefined) => (c ?? '').toUpperCase())}`,
    summary: endpoint.summary,
    tags: [endpoint.tag],
    responses,
  };
  if (endpoint.description) op.description = endpoint.description;
  // Refused (403 guardian_consent_required) to a child whose guardian has not consented yet.
  if (restrictedWhileGuardianPending(endpoint)) op['x-guardian-consent-required'] = true;
  if (endpoint.auth === 'required') op.security = [{ bearer: [] }, { apiTokenQuery: [] }];
  if (endpoint.auth === 'optional') op.security = [{}, { bearer: [] }, { apiTokenQuery: [] }];
  // Said outright: a public route needs no token (linters flag an operation that leaves it unsaid).
  if (endpoint.auth === 'none') op.security = [];
  const properties = schema.properties as Record<string, Record<string, unknown>>;
  // OpenAPI requires every path segment parameter to be declared (and required).
  const pathProperties = pathSchema.properties as Record<string, Record<string, unknown>>;
  const pathParameters = [...inPath].map((name) => {
    const documented = pathProperties[name];
    // A path parameter outside the rule list would reach the handler unvalidated: refuse to start.
    if (!documented) throw new Error(`${endpoint.path}: path parameter ${name} has no rule`);
    const { description, ...property } = documented;
    return { name, in: 'path', required: true, schema: property, description };
  });
  if (pathParameters.length > 0) op.parameters = pathParameters;
  if (endpoint.method === 'GET') {
    const required = new Set((schema.required as string[] | undefined) ?? []);
    op.parameters = [
      ...pathParameters,
      ...Object.entries(properties).map(([name, property]) => ({
        name: property.type === 'array' ? `${name}[]` : name,
        in: 'query',
        required: required.has(name),
        schema: property,
        description: property.description,
      })),
    ];
  } else {
    // Every body type is parsed on every route (http/body-parsers.ts); files come only in multipart, so the
    // form and JSON schemas leave the file fields out, and a route that requires a file lists multipart alone.
    const withoutFiles = withoutFileProperties(schema);
    // A route that requires a nested object (a WebAuthn response) is called with JSON: a form could spell it
    // only as `a[b][c]` keys. (An optional one, as the re-authentication fields, leaves the others open.)
    const requiredNames = (schema.required as string[] | undefined) ?? [];
    const nested = requiredNames.some((name) => properties[name]?.type === 'object');
    const content: Record<string, unknown> = nested
      ? { 'application/json': { schema: withoutFiles ?? schema } }
      : { 'multipart/form-data': { schema } };
    if (withoutFiles && !nested) {
      content['application/x-www-form-urlencoded'] = { schema: withoutFiles };
      content['application/json'] = { schema: withoutFiles };
    }
    op.requestBody = { required: Object.keys(properties).length > 0, content };
  }
  return op;
}

/** The OpenAPI 3.1 document, generated from the same endpoint list and rule lists the service runs on. */
export function openApiDocument(endpoints: AnyEndpoint[], versions: string[], serviceVersion: string) {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const endpoint of endpoints) {
    const path = endpoint.path.replace(/:([A-Za-z_]+)/g, '{$1}');
    paths[path] ??= {};
    (paths[path] as Record<string, unknown>)[endpoint.method.toLowerCase()] = operation(endpoint);
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'accounts',
      version: serviceVersion,
      description:
        'Account service: availability checks, registration, login and the signed-in user. Every response is ' +
        'the `{meta, data}` envelope with `meta.code` equal to the HTTP status. Body parameters may be sent ' +
        'as form fields, multipart (the only way to send files) or JSON.',
    },
    servers: [{ url: '/{version}', variables: { version: { enum: versions, default: versions[0] } } }],
    paths,
    components: {
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', description: 'The `api_token` from register or login.' },
        apiTokenQuery: { type: 'apiKey', in: 'query', name: 'api_token' },
      },
      schemas: {
        Meta: {
          type: 'object',
          required: ['code'],
          properties: {
            code: { type: 'integer' },
            error_type: { type: 'string' },
            error_message: { type: 'string' },
          },
        },
        Error: envelope({}),
        ValidationError: envelope({
          type: 'object',
          additionalProperties: { type: 'array', items: { type: 'string' } },
        }),
      },
    },
  };
}
