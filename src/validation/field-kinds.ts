import { type Coerce, Field, type FieldSpec } from './field.js';
import { isUploadedFile, type JsonSchema, type UploadedFile } from './types.js';

/** A field of this kind: optional, with no rules yet. */
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

/**
 * A JSON object (a nested value of an `application/json` body, or `a[b]=c` keys of a form), for parameters
 * that are structured by nature (a WebAuthn response). `schema`: the JSON Schema of its members, for
 * /openapi.json; members it does not name are allowed. Only a plain object passes: an array, a string or
 * a file is a 422 on the field. Its strings are trimmed like every other string of the request.
 */
export function object(schema: JsonSchema = {}): Field<Record<string, unknown>> {
  return base<Record<string, unknown>>(
    'object',
    (value) =>
      typeof value === 'object' && value !== null && !Array.isArray(value) && !isUploadedFile(value)
        ? { ok: true, value: value as Record<string, unknown> }
        : { ok: false, failure: { rule: 'object' } },
    { type: 'object', additionalProperties: true, ...schema },
  );
}
