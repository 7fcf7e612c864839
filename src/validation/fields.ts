import type { RuleFailure } from '../errors.js';
import { codePointLength, EMAIL_PATTERN } from './patterns.js';
import {
  type ConvertingRule,
  type FieldStep,
  isUploadedFile,
  type JsonSchema,
  type Rule,
  type TakenLookup,
  type UniqueOptions,
  type UploadedFile,
} from './types.js';

export type Presence =
  | { type: 'optional' }
  | { type: 'required' }
  | { type: 'required_if'; other: string; values: readonly string[] };

/** Turns a raw bag value into the field's type, or says which type rule failed. */
type Coerce<T> = (value: unknown) => { ok: true; value: T } | { ok: false; failure: RuleFailure };

/**
 * What a field checks, in order. Untyped in its values: the Field class adds a step only with the value type
 * the steps before it produce, and records the resulting type as its own parameter.
 */
export interface FieldSpec {
  kind: 'string' | 'integer' | 'boolean' | 'accepted' | 'file' | 'array' | 'files';
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

function base<T>(kind: FieldSpec['kind'], coerce: Coerce<T>, baseSchema: JsonSchema): Field<T, false> {
  return new Field<T, false>({ kind, coerce, baseSchema, presence: { type: 'optional' }, rules: [] });
}

/** A string field. `normalize: 'NFC'` composes Korean jamo sequences before any rule sees the value. */
export function string(options: { normalize?: 'NFC' } = {}): Field<string> {
  return base<string>(
    'string',
    (value) =>
      typeof value !== 'string'
        ? { ok: false, failure: { rule: 'string' } }
        : // PostgreSQL text cannot hold U+0000; no field of ours has a use for it.
          value.includes('\u0000')
          ? { ok: false, failure: { rule: 'regex' } }
          : { ok: true, value: options.normalize ? value.normalize(options.normalize) : value },
    { type: 'string' },
  );
}

/** An integer, from a JSON number or a decimal string (form bodies carry only strings). */
export function integer(): Field<number> {
  return base<number>(
    'integer',
    (value) => {
      if (typeof value === 'number' && Number.isSafeInteger(value)) return { ok: true, value };
      // Plain decimal only: `01` and `+1` are not the 1 of Laravel's `in:0,1` (it compares strings).
      if (typeof value === 'string' && /^-?(0|[1-9]\d{0,14})$/.test(value))
        return { ok: true, value: Number(value) };
      return { ok: false, failure: { rule: 'integer' } };
    },
    { type: 'integer' },
  );
}

const TRUE_WORDS = ['1', 'true', 'on', 'yes'];
const FALSE_WORDS = ['0', 'false', 'off', 'no'];

export function boolean(): Field<boolean> {
  return base<boolean>(
    'boolean',
    (value) => {
      if (typeof value === 'boolean') return { ok: true, value };
      if (value === 1 || value === 0) return { ok: true, value: value === 1 };
      if (typeof value === 'string' && TRUE_WORDS.includes(value.toLowerCase()))
        return { ok: true, value: true };
      if (typeof value === 'string' && FALSE_WORDS.includes(value.toLowerCase()))
        return { ok: true, value: false };
      return { ok: false, failure: { rule: 'boolean' } };
    },
    { type: 'boolean' },
  );
}

/** Laravel's `accepted`: a checkbox that must be ticked (exactly `on`, `yes`, `1` or `true`, as PHP compares). */
export function accepted(): Field<true> {
  return base<true>(
    'accepted',
    (value) =>
      value === true || value === 1 || (typeof value === 'string' && TRUE_WORDS.includes(value))
        ? { ok: true, value: true }
        : { ok: false, failure: { rule: 'accepted' } },
    { type: 'string', enum: ['on', 'yes', '1', 'true'] },
  );
}

/** A file part of a multipart body. */
export function file(): Field<UploadedFile> {
  return base<UploadedFile>(
    'file',
    (value) => (isUploadedFile(value) ? { ok: true, value } : { ok: false, failure: { rule: 'file' } }),
    { type: 'string', format: 'binary' },
  );
}

/**
 * Several file parts under one name (`images[]`, or `images[0]`, `images[1]`…). A single part sent as plain
 * `images` is read as a list of one: the app means the same thing.
 */
export function fileArray(): Field<UploadedFile[]> {
  return base<UploadedFile[]>(
    'files',
    (value) => {
      const list = isUploadedFile(value) ? [value] : value;
      return Array.isArray(list) && list.every(isUploadedFile)
        ? { ok: true, value: list }
        : { ok: false, failure: { rule: 'array' } };
    },
    { type: 'array', items: { type: 'string', format: 'binary' } },
  );
}

/** An array of strings (`exclude[]=a&exclude[]=b`, `exclude[0]=a` or a JSON array). */
export function stringArray(): Field<string[]> {
  return base<string[]>(
    'array',
    (value) =>
      Array.isArray(value) && value.every((item) => typeof item === 'string' && !item.includes('\u0000'))
        ? { ok: true, value }
        : { ok: false, failure: { rule: 'array' } },
    { type: 'array', items: { type: 'string' } },
  );
}

// biome-ignore lint/suspicious/noExplicitAny: a rule list mixes fields of every value type; Params<L> restores them.
export type AnyField = Field<any, boolean>;
export type RuleList = Record<string, AnyField>;

type FieldValue<F> = F extends { readonly __value: infer T } ? T : never;
type RequiredKeys<L extends RuleList> = {
  [K in keyof L]: L[K] extends Field<infer _T, true> ? K : never;
}[keyof L];
type OptionalKeys<L extends RuleList> = Exclude<keyof L, RequiredKeys<L>>;

/** The validated parameters of a rule list: required fields always present, the rest maybe. */
export type Params<L extends RuleList> = { [K in RequiredKeys<L>]: FieldValue<L[K]> } & {
  [K in OptionalKeys<L>]?: FieldValue<L[K]>;
};

/** Declares an endpoint's rule list (an identity function that keeps the exact field types). */
export function rules<L extends RuleList>(list: L): L {
  return list;
}
