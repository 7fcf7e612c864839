import { describe, expect, it } from 'vitest';
import { endpoint } from '../../src/http/endpoint.js';
import { openApiDocument } from '../../src/http/openapi.js';
import { t } from '../../src/http/response-schema.js';
import { integer, string, stringArray } from '../../src/validation/field-kinds.js';
import { rules } from '../../src/validation/rule-list.js';

const feed = endpoint({
  method: 'GET',
  path: '/post/raw/feed',
  summary: 'The feed',
  description: 'Newest first.',
  tag: 'posts',
  auth: 'optional',
  errors: [429, 404],
  rules: rules({
    order: string().in(['hot', 'new']),
    limit: integer().min(1).max(100),
    exclude: stringArray(),
    cursor: string().required(),
  }),
  response: t.object({ next_cursor: t.nullable(t.string()) }),
  example: { next_cursor: null },
  handle: async () => ({ next_cursor: null }),
});

const single = endpoint({
  method: 'GET',
  path: '/post/single/:id/raw',
  summary: 'One post',
  tag: 'posts',
  auth: 'none',
  rules: rules({ id: string().required().describe('The post id.') }),
  response: t.object({ deleted: t.literal(true) }),
  example: { deleted: true },
  handle: async () => ({ deleted: true as const }),
});

describe('openApiDocument', () => {
  const doc = openApiDocument([feed, single], ['dev', 'v1'], '9.9.9');
  const paths = doc.paths as Record<string, Record<string, Record<string, unknown>>>;

  it('turns a GET rule list into query parameters, array fields with PHP brackets', () => {
    const operation = paths['/post/raw/feed']?.get;
    expect(operation?.requestBody).toBeUndefined();
    expect(operation?.parameters).toEqual([
      expect.objectContaining({
        name: 'order',
        in: 'query',
        required: false,
        schema: expect.objectContaining({ enum: ['hot', 'new'] }),
      }),
      expect.objectContaining({
        name: 'limit',
        in: 'query',
        required: false,
        schema: expect.objectContaining({ minimum: 1, maximum: 100 }),
      }),
      expect.objectContaining({ name: 'exclude[]', in: 'query', required: false }),
      expect.objectContaining({ name: 'cursor', in: 'query', required: true }),
    ]);
  });

  it('makes a token optional for optional-auth endpoints and absent for public ones', () => {
    expect(paths['/post/raw/feed']?.get?.security).toEqual([{}, { bearer: [] }, { apiTokenQuery: [] }]);
    // Said outright for a public route (an operation that leaves it unsaid fails a linter's default rules).
    expect(paths['/post/single/{id}/raw']?.get?.security).toEqual([]);
  });

  it('documents a path parameter from its rule, in the path and not in the query', () => {
    expect(paths['/post/single/{id}/raw']?.get?.parameters).toEqual([
      {
        name: 'id',
        in: 'path',
        required: true,
        schema: {
          type: 'string',
          'x-messages': {
            en: ['The id field is required.', 'The id must be a string.'],
            ko: ['ID 필드는 필수입니다.', 'ID는 문자열이어야 합니다.'],
          },
        },
        description:
          'The post id. Rules: required. 422: “The id field is required.”, “The id must be a string.”',
      },
    ]);
  });

  it('refuses a path parameter that is not in the rule list (it would reach the handler unchecked)', () => {
    const unchecked = endpoint({
      method: 'POST',
      path: '/post/:post/like',
      summary: 'Like',
      tag: 'posts',
      auth: 'required',
      rules: rules({ id: string().required() }),
      response: t.object({}),
      example: {},
      handle: async () => ({}),
    });
    expect(() => openApiDocument([unchecked], ['v1'], '1.0.0')).toThrow(/:?post.*has no rule/);
  });

  it('documents the declared 200 data schema in the envelope, with the example as a whole envelope', () => {
    type Ok = { content: Record<string, { schema: unknown; example: unknown }> };
    const responses = paths['/post/raw/feed']?.get?.responses as Record<string, Ok> | undefined;
    const json = responses?.['200']?.content['application/json'];
    expect(json?.schema).toEqual({
      type: 'object',
      required: ['meta', 'data'],
      properties: {
        meta: { type: 'object', required: ['code'], properties: { code: { type: 'integer', const: 200 } } },
        data: {
          type: 'object',
          properties: { next_cursor: { type: ['string', 'null'] } },
          required: ['next_cursor'],
        },
      },
    });
    expect(json?.example).toEqual({ meta: { code: 200 }, data: { next_cursor: null } });
  });

  it('writes path parameters in OpenAPI form and makes camel-case operation ids', () => {
    expect(Object.keys(paths)).toEqual(['/post/raw/feed', '/post/single/{id}/raw']);
    expect(paths['/post/single/{id}/raw']?.get?.operationId).toBe('getPostSingleIdRaw');
    expect(paths['/post/raw/feed']?.get?.operationId).toBe('getPostRawFeed');
  });

  it('lists the declared errors with 500 and 503, in order, and keeps the description', () => {
    const operation = paths['/post/raw/feed']?.get as {
      responses: Record<string, unknown>;
      description: string;
    };
    // An optional token can still be refused: a presented one that proves nobody is a 401.
    expect(Object.keys(operation.responses)).toEqual(['200', '401', '404', '422', '429', '500', '503']);
    expect(operation.description).toBe('Newest first.');
  });

  it('names the service version and the versions as the server variable', () => {
    expect(doc.info.version).toBe('9.9.9');
    expect(doc.servers).toEqual([
      { url: '/{version}', variables: { version: { enum: ['dev', 'v1'], default: 'dev' } } },
    ]);
  });
});
