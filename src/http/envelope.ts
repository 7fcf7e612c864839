import type { JsonSchema } from '../validation/types.js';

/** The envelope of every answer: `meta.code` always equals the HTTP status. */

export interface SuccessEnvelope<T> {
  meta: { code: 200 };
  data: T;
}

export interface ErrorEnvelope {
  meta: { code: number; error_type: string; error_message: string };
  data: unknown;
}

export function ok<T>(data: T): SuccessEnvelope<T> {
  return { meta: { code: 200 }, data };
}

export function failure(
  code: number,
  errorType: string,
  errorMessage: string,
  data: unknown = [],
): ErrorEnvelope {
  return { meta: { code, error_type: errorType, error_message: errorMessage }, data };
}

/** The JSON Schema of a 200 envelope around `data` (Fastify serializes through it; /openapi.json shows it). */
export function successEnvelopeSchema(data: JsonSchema): JsonSchema {
  return {
    type: 'object',
    required: ['meta', 'data'],
    properties: {
      meta: { type: 'object', required: ['code'], properties: { code: { type: 'integer', const: 200 } } },
      data,
    },
  };
}
