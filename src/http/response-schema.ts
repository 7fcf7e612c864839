import type { JsonSchema } from '../validation/types.js';

/**
 * A JSON Schema together with the TypeScript type of the values it describes: one declaration types a
 * handler's return, documents the response in /openapi.json and drives Fastify's serializer (which writes
 * only the declared properties, so a column returned by accident never reaches a client).
 *
 * Hand-rolled rather than a dependency (e.g. @sinclair/typebox): the dozen builders below are all the responses
 * use, and the schemas stay plain JSON Schema 2020-12 that OpenAPI 3.1 embeds as they are.
 */
export interface Shape<T> {
  readonly schema: JsonSchema;
  /** Type level only: the value type. */
  readonly __static?: T;
}

export type Static<S> = S extends Shape<infer T> ? T : never;

/** An object shape keeps its properties, so views can be extended or narrowed (`extend`, `omit`). */
export interface ObjectShape<P extends Properties> extends Shape<{ [K in keyof P]: Static<P[K]> }> {
  readonly properties: P;
}

// biome-ignore lint/suspicious/noExplicitAny: properties mix shapes of every value type; Static<> restores them.
export type Properties = Record<string, Shape<any>>;

function shape<T>(schema: JsonSchema): Shape<T> {
  return { schema };
}

function object<P extends Properties>(properties: P, description?: string): ObjectShape<P> {
  return {
    properties,
    // Every property is always present (null when empty): a client never has to test for a missing key.
    schema: {
      type: 'object',
      ...(description ? { description } : {}),
      properties: Object.fromEntries(Object.entries(properties).map(([name, inner]) => [name, inner.schema])),
      required: Object.keys(properties),
    },
  };
}

export const t = {
  string: (description?: string) =>
    shape<string>({ type: 'string', ...(description ? { description } : {}) }),
  /** An ISO 8601 UTC timestamp, as `lib/time.ts#iso` writes it. */
  dateTime: () => shape<string>({ type: 'string', format: 'date-time' }),
  integer: () => shape<number>({ type: 'integer' }),
  number: () => shape<number>({ type: 'number' }),
  boolean: () => shape<boolean>({ type: 'boolean' }),
  /** Exactly this value (`{"status": "valid"}`). */
  literal: <const V extends string | boolean>(value: V) =>
    shape<V>({ type: typeof value === 'string' ? 'string' : 'boolean', const: value }),
  enum: <const V extends string>(values: readonly V[]) => shape<V>({ type: 'string', enum: [...values] }),
  /**
   * The value or null, as a list of types: the serializer tells them apart by a type check, where an `anyOf`
   * would run a schema validator on every response (most of what user/get's profile_picture cost).
   */
  nullable: <T>(inner: Shape<T>): Shape<T | null> => {
    const type = inner.schema.type;
    if (typeof type !== 'string') return shape<T | null>({ anyOf: [inner.schema, { type: 'null' }] });
    // An enum lists null among its values too, or null would fail it.
    const values = Array.isArray(inner.schema.enum) ? { enum: [...inner.schema.enum, null] } : {};
    return shape<T | null>({ ...inner.schema, type: [type, 'null'], ...values });
  },
  array: <T>(items: Shape<T>) => shape<T[]>({ type: 'array', items: items.schema }),
  /** An object of any keys whose values all have one shape (e.g. thumbnails by size). */
  record: <T>(values: Shape<T>) =>
    shape<Record<string, T>>({ type: 'object', additionalProperties: values.schema }),
  object,
  /**
   * A JSON object defined by another standard (a WebAuthn options object), passed through whole: `members`
   * documents the members it has today, and members it does not name still reach the client.
   */
  json: <T>(description: string, members: Record<string, JsonSchema> = {}) =>
    shape<T>({ type: 'object', description, properties: members, additionalProperties: true }),
  /** The object with more properties (the signed-in user plus its new `api_token`). */
  extend: <P extends Properties, Q extends Properties>(base: ObjectShape<P>, more: Q) =>
    object({ ...base.properties, ...more } as P & Q),
  /** The object without some properties (the public view of a user). */
  omit: <P extends Properties, K extends keyof P & string>(base: ObjectShape<P>, keys: readonly K[]) =>
    object(
      Object.fromEntries(
        Object.entries(base.properties).filter(([name]) => !keys.includes(name as K)),
      ) as Omit<P, K>,
    ),
};
