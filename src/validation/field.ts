import type { RuleFailure } from '../errors.js';
import { codePointLength, EMAIL_PATTERN } from './patterns.js';
import type {
  ConvertingRule,
  FieldStep,
  JsonSchema,
  Rule,
  TakenLookup,
  UniqueOptions,
  UploadedFile,
} from './types.js';

export type Presence =
  | { type: 'optional' }
  | { type: 'required' }
  | { type: 'required_if'; other: string; values: readonly string[] };

/** Turns a raw bag value into the field's type, or says which type rule failed. */
export type Coerce<T> = (value: unknown) => { ok: true; value: T } | { ok: false; failure: RuleFailure };

/**
 * What a field checks, in order. Untyped in its values: the Field class adds a step only with the value type
 * the steps before it produce, and records the resulting type as its own parameter.
 */
export interface FieldSpec {
  kind: 'string' | 'integer' | 'boolean' | 'accepted' | 'file' | 'array' | 'files' | 'object';
  coerce: Coerce<unknown>;
  baseSchema: JsonSchema;
  presence: Presence;
  rules: FieldStep[];
  description?: string;
  /** Sent empty, the field reads as null ("clear it") instead of absent. */
  nullable?: boolean;
}

/**
 * One field of an endpoint's rule list. Immutable: every method returns a new field, so rule lists can share
 * building blocks (`emailField.unique(emailTaken, …)`) without one endpoint's rules leaking into another's.
 * `R` records at the type level whether the field is always present after validation.
 */
export class Field<T, R extends boolean = false> {
  declare readonly __required: R;
  /** The validated value's type (type level only). */
  declare readonly __value: T;
  constructor(readonly spec: FieldSpec) {}

  #with(changes: Partial<FieldSpec>): Field<T, R> {
    return new Field<T, R>({ ...this.spec, ...changes });
  }

  #rule(rule: Rule<T>): Field<T, R> {
    return this.#with({ rules: this.#after(rule) });
  }

  /** The steps with one more: never after a rule left to the write, which the engine may not run at all. */
  #after(step: FieldStep): FieldStep[] {
    if (this.spec.rules.at(-1)?.leftToWrite) {
      throw new Error(`${step.name} added after a rule left to the write: that one must come last`);
    }
    return [...this.spec.rules, step];
  }

  required(): Field<T, true> {
    return new Field<T, true>({ ...this.spec, presence: { type: 'required' } });
  }

  /** Laravel's `required_if:other,value1,value2`: required when the other field equals one of the values. */
  requiredIf(other: string, values: readonly string[]): Field<T, false> {
    return new Field<T, false>({ ...this.spec, presence: { type: 'required_if', other, values } });
  }

  /** An empty value (`bio=` or `"bio": null`) clears the field: it validates as `null` rather than absent. */
  nullable(): Field<T | null, R> {
    return new Field<T | null, R>({ ...this.spec, nullable: true });
  }

  describe(description: string): Field<T, R> {
    return this.#with({ description });
  }

  /** Adds a rule of the endpoint's own (checked in the order rules are added). */
  rule(rule: Rule<T>): Field<T, R> {
    return this.#rule(rule);
  }

  /**
   * Adds a rule that turns the value into what it learned (checked in order, like `rule`): the handler gets the
   * converted value, typed.
   */
  convert<U>(rule: ConvertingRule<T, U>): Field<U, R> {
    return new Field<U, R>({ ...this.spec, rules: this.#after(rule) });
  }

  /** Maximum length in code points (strings), size in kilobytes (files) or value (integers). */
  max(max: number): Field<T, R> {
    const kind = this.spec.kind;
    return this.#rule({
      name: `max:${max}`,
      failures: [
        {
          rule:
            kind === 'file'
              ? 'max.file'
              : kind === 'integer'
                ? 'max.numeric'
                : kind === 'array' || kind === 'files'
                  ? 'max.array'
                  : 'max.string',
          params: { max },
        },
      ],
      check: (value) => {
        if (kind === 'file')
          return (value as UploadedFile).data.length > max * 1024 || (value as UploadedFile).truncated
            ? { rule: 'max.file', params: { max } }
            : undefined;
        if (kind === 'integer')
          return (value as number) > max ? { rule: 'max.numeric', params: { max } } : undefined;
        if (kind === 'array' || kind === 'files')
          return (value as unknown[]).length > max ? { rule: 'max.array', params: { max } } : undefined;
        return codePointLength(value as string) > max ? { rule: 'max.string', params: { max } } : undefined;
      },
      schema: (schema) => {
        if (kind === 'integer') schema.maximum = max;
        else if (kind === 'array' || kind === 'files') schema.maxItems = max;
        else if (kind === 'file') schema['x-max-kilobytes'] = max;
        else schema.maxLength = max;
      },
    });
  }

  min(min: number): Field<T, R> {
    const kind = this.spec.kind;
    return this.#rule({
      name: `min:${min}`,
      failures: [
        {
          rule:
            kind === 'integer'
              ? 'min.numeric'
              : kind === 'array' || kind === 'files'
                ? 'min.array'
                : 'min.string',
          params: { min },
        },
      ],
      check: (value) => {
        if (kind === 'integer')
          return (value as number) < min ? { rule: 'min.numeric', params: { min } } : undefined;
        if (kind === 'array' || kind === 'files')
          return (value as unknown[]).length < min ? { rule: 'min.array', params: { min } } : undefined;
        return codePointLength(value as string) < min ? { rule: 'min.string', params: { min } } : undefined;
      },
      schema: (schema) => {
        if (kind === 'integer') schema.minimum = min;
        else if (kind === 'array' || kind === 'files') schema.minItems = min;
        else schema.minLength = min;
      },
    });
  }

  email(): Field<T, R> {
    return this.#rule({
      name: 'email',
      failures: [{ rule: 'email' }],
      check: (value) => (EMAIL_PATTERN.test(value as string) ? undefined : { rule: 'email' }),
      schema: (schema) => {
        schema.format = 'email';
      },
    });
  }

  /** Laravel's `regex`: the pattern must match the whole value (the pattern carries its own anchors). */
  pattern(pattern: RegExp): Field<T, R> {
    return this.#rule({
      name: `regex:${pattern.source}`,
      failures: [{ rule: 'regex' }],
      check: (value) => (pattern.test(value as string) ? undefined : { rule: 'regex' }),
      schema: (schema) => {
        schema.pattern = pattern.source;
      },
    });
  }

  /** Laravel's `in`: the value must be one of these. */
  in(values: readonly T[]): Field<T, R> {
    return this.#rule({
      name: `in:${values.join(',')}`,
      failures: [{ rule: 'in' }],
      check: (value) => (values.includes(value) ? undefined : { rule: 'in' }),
      schema: (schema) => {
        schema.enum = [...values];
      },
    });
  }

  /**
   * No one else holds this value, as `taken` answers (optionally ignoring the signed-in user). `name`: what
   * the documentation calls the lookup, Laravel-style (`users,email` makes `unique:users,email`). `leftToWrite`:
   * the request writes the value under a unique index, which is then the check (`Rule.leftToWrite`).
   */
  unique(taken: TakenLookup, options: UniqueOptions): Field<T, R> {
    return this.#rule({
      name: `unique:${options.name}`,
      failures: [{ rule: 'unique' }],
      leftToWrite: options.leftToWrite,
      check: async (value, context) => {
        const except = options.ignoreCurrentUser ? context.currentUserId : undefined;
        return (await taken(value as string, except)) ? { rule: 'unique' } : undefined;
      },
      schema: (schema) => {
        schema['x-unique'] = true;
      },
    });
  }

  /** Someone holds this value, as `taken` answers; `name` as for `unique` (`exists:users,email`). */
  exists(taken: TakenLookup, name: string): Field<T, R> {
    return this.#rule({
      name: `exists:${name}`,
      failures: [{ rule: 'exists' }],
      check: async (value) => ((await taken(value as string, undefined)) ? undefined : { rule: 'exists' }),
    });
  }
}
