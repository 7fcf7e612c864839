import type { JsonSchema } from '../validation/types.js';

/** The envelope of every answer: `meta.code` always equals the HTTP status. */

/** The statuses of a success: 200, or 202 when the request only started the work (a data export). */
export type SuccessStatus = 200 | 202;

export interface SuccessEnvelope<T> {
  meta: { code: SuccessStatus };
  data: T;
}

export interface ErrorEnvelope {
  meta: { code: number; error_type: string; error_message: string };
  data: unknown;
}

export function ok<T>(data: T, code: SuccessStatus = 200): SuccessEnvelope<T> {
  return { meta: { code }, data };
}

export function failure(
  code: number,
  errorType: string,
  errorMessage: string,
  data: unknown = [],
): ErrorEnvelope {
  return { meta: { code, error_type: errorType, error_message: errorMessage }, data };
}

/** The JSON Schema of a success envelope around `data` (Fastify serializes through it; /openapi.json shows it). */
export function successEnvelopeSchema(data: JsonSchema, code: SuccessStatus = 200): JsonSchema {
  return {
    type: 'object',
    required: ['meta', 'data'],
    properties: {
      meta: { type: 'object', required: ['code'], properties: { code: { type: 'integer', const: code } } },
      data,
    },
  };
}
