import { describe, expect, it, vi } from 'vitest';
import { ValidationError } from '../../src/errors.js';
import { validate } from '../../src/validation/engine.js';
import { accepted, boolean, file, integer, rules, string, stringArray } from '../../src/validation/fields.js';
import type { Column, Lookups, UploadedFile } from '../../src/validation/types.js';

/** Lookups over an in-memory set of "column:lower(value)" entries, recording every question asked. */
function lookups(taken: string[] = []) {
  const held = new Set(taken.map((entry) => entry.toLowerCase()));
  const spy = vi.fn(async (column: Column, value: string, _except?: string) =>
    held.has(`${column}:${value.toLowerCase()}`),
  );
  return { taken: spy } satisfies Lookups;
}

/** The failures of a validation that must fail. */
async function failures(
  list: Parameters<typeof validate>[0],
  bag: Record<string, unknown>,
  look: Lookups = lookups(),
) {
  const error = await validate(list, bag, { lookups: look }).then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(ValidationError);
  return (error as ValidationError).failures;
}

function upload(bytes: number, truncated = false): UploadedFile {
  return {
    kind: 'uploaded-file',
    fieldName: 'f',
    fileName: 'f.bin',
    declaredType: 'application/octet-stream',
    data: Buffer.alloc(bytes),
    truncated,
  };
}

describe('validate', () => {
  it('returns only the listed fields, with their coerced values', async () => {
    const list = rules({ name: string().required(), age: integer(), ok: boolean(), note: string() });
    const params = await validate(
      list,
      { name: 'kim', age: '30', ok: 'yes', stray: 'x' },
      { lookups: lookups() },
    );
    expect(params).toEqual({ name: 'kim', age: 30, ok: true });
  });

  it('reports every failing field together', async () => {
    const list = rules({ a: string().required(), b: integer().required(), c: string().max(2) });
    expect(await failures(list, { c: 'abc' })).toEqual({
      a: [{ rule: 'required' }],
      b: [{ rule: 'required' }],
      c: [{ rule: 'max.string', params: { max: 2 } }],
    });
  });

  it('ends a field at its first failing rule, so a malformed email never costs a uniqueness query', async () => {
    const look = lookups();
    const list = rules({ email: string().required().max(255).email().unique('email') });
    expect(await failures(list, { email: 'not-an-email' }, look)).toEqual({ email: [{ rule: 'email' }] });
    expect(await failures(list, { email: `${'a'.repeat(250)}@b.com` }, look)).toEqual({
      email: [{ rule: 'max.string', params: { max: 255 } }],
    });
    expect(look.taken).not.toHaveBeenCalled();
  });

  it('asks the lookups for unique and exists, case-insensitively by contract', async () => {
    const look = lookups(['email:Kim@Example.com']);
    const unique = rules({ email: string().unique('email') });
    const exists = rules({ email: string().exists('email') });
    expect(await failures(unique, { email: 'kim@example.COM' }, look)).toEqual({
      email: [{ rule: 'unique' }],
    });
    await expect(validate(exists, { email: 'KIM@example.com' }, { lookups: look })).resolves.toEqual({
      email: 'KIM@example.com',
    });
    expect(await failures(exists, { email: 'lee@example.com' }, look)).toEqual({
      email: [{ rule: 'exists' }],
    });
    expect(look.taken).toHaveBeenCalledWith('email', 'kim@example.COM', undefined);
  });

  it('passes the signed-in user to unique only when the field ignores it', async () => {
    const look = lookups();
    const list = rules({
      email: string().unique('email', { ignoreCurrentUser: true }),
      slug: string().unique('slug'),
    });
    await validate(list, { email: 'a@b.co', slug: 'abcd' }, { lookups: look, currentUserId: 'user-1' });
    expect(look.taken).toHaveBeenCalledWith('email', 'a@b.co', 'user-1');
    expect(look.taken).toHaveBeenCalledWith('slug', 'abcd', undefined);
  });

  it('checks a type before any rule: a wrong type is its own failure', async () => {
    const list = rules({ name: string().max(3), age: integer().min(1), files: stringArray() });
    expect(await failures(list, { name: ['x'], age: 'old', files: 'a' })).toEqual({
      name: [{ rule: 'string' }],
      age: [{ rule: 'integer' }],
      files: [{ rule: 'array' }],
    });
  });

  it('leaves an absent optional field out instead of failing it', async () => {
    const params = await validate(rules({ bio: string().max(3) }), {}, { lookups: lookups() });
    expect(params).toEqual({});
  });

  describe('requiredIf', () => {
    const list = rules({
      type: string().required(),
      password: string().min(8).requiredIf('type', ['email']),
      alpha_user_id: string().requiredIf('type', ['alpha', 'beta']),
    });

    it('requires the field when the other field holds one of the values', async () => {
      expect(await failures(list, { type: 'email' })).toEqual({
        password: [{ rule: 'required_if', params: { other: 'type', value: 'email' } }],
      });
      expect(await failures(list, { type: 'beta' })).toEqual({
        alpha_user_id: [{ rule: 'required_if', params: { other: 'type', value: 'beta' } }],
      });
    });

    it('leaves it optional otherwise, and still checks it when sent', async () => {
      await expect(
        validate(list, { type: 'alpha', alpha_user_id: 'x' }, { lookups: lookups() }),
      ).resolves.toEqual({
        type: 'alpha',
        alpha_user_id: 'x',
      });
      expect(await failures(list, { type: 'alpha', alpha_user_id: 'x', password: 'short' })).toEqual({
        password: [{ rule: 'min.string', params: { min: 8 } }],
      });
    });

    it('is not triggered by an other field of the wrong type', async () => {
      expect(await failures(list, { type: ['email'] })).toEqual({ type: [{ rule: 'string' }] });
    });
  });

  it('keeps what rules learn in the notes it is given', async () => {
    const notes = new Map<string, unknown>();
    const list = rules({
      name: string().rule({
        name: 'remember',
        check: (value, context, field) => {
          context.notes.set(field, value.length);
          return undefined;
        },
      }),
    });
    await validate(list, { name: 'abcd' }, { lookups: lookups(), notes });
    expect(notes.get('name')).toBe(4);
  });

  it('lets a custom rule see the whole parameter bag', async () => {
    const list = rules({
      password: string().rule({
        name: 'not_username',
        check: (value, context) => (value === context.bag.username ? { rule: 'password_common' } : undefined),
      }),
    });
    expect(await failures(list, { username: 'samesame', password: 'samesame' })).toEqual({
      password: [{ rule: 'password_common' }],
    });
  });
});

describe('field types', () => {
  async function coerce(field: Parameters<typeof rules>[0][string], value: unknown) {
    const list = rules({ field });
    return validate(list, { field: value }, { lookups: lookups() }).then(
      (params) => ({ value: (params as Record<string, unknown>).field }),
      (error: ValidationError) => ({ failure: error.failures.field }),
    );
  }

  it.each([
    ['42', 42],
    ['+7', 7],
    ['-3', -3],
    ['007', 7],
    [5, 5],
    [-0, -0],
    ['999999999999999', 999_999_999_999_999],
  ])('integer() reads %j as %d', async (input, expected) => {
    expect(await coerce(integer(), input)).toEqual({ value: expected });
  });

  it.each([
    '1.0',
    '1e3',
    '0x10',
    '',
    ' 1',
    '1 ',
    '1000000000000000',
    1.5,
    Number.MAX_SAFE_INTEGER + 1,
    true,
    [1],
  ])('integer() refuses %j', async (input) => {
    expect(await coerce(integer(), input)).toEqual({ failure: [{ rule: 'integer' }] });
  });

  it.each([
    [true, true],
    [false, false],
    [1, true],
    [0, false],
    ['1', true],
    ['TRUE', true],
    ['on', true],
    ['Yes', true],
    ['0', false],
    ['false', false],
    ['OFF', false],
    ['no', false],
  ])('boolean() reads %j as %s', async (input, expected) => {
    expect(await coerce(boolean(), input)).toEqual({ value: expected });
  });

  it.each(['2', 'y', 'nope', 2, [true]])('boolean() refuses %j', async (input) => {
    expect(await coerce(boolean(), input)).toEqual({ failure: [{ rule: 'boolean' }] });
  });

  it.each(['on', 'ON', 'yes', '1', 'true', 'True', true, 1])('accepted() passes %j', async (input) => {
    expect(await coerce(accepted(), input)).toEqual({ value: true });
  });

  it.each(['off', 'no', '0', 'false', 'agree', false, 0, 2])('accepted() refuses %j', async (input) => {
    expect(await coerce(accepted(), input)).toEqual({ failure: [{ rule: 'accepted' }] });
  });

  it('stringArray() takes arrays of strings only', async () => {
    expect(await coerce(stringArray(), ['a', 'b'])).toEqual({ value: ['a', 'b'] });
    expect(await coerce(stringArray(), [])).toEqual({ value: [] });
    expect(await coerce(stringArray(), ['a', 1])).toEqual({ failure: [{ rule: 'array' }] });
    expect(await coerce(stringArray(), { 0: 'a' })).toEqual({ failure: [{ rule: 'array' }] });
  });

  it('file() takes uploaded files only', async () => {
    const part = upload(3);
    expect(await coerce(file(), part)).toEqual({ value: part });
    expect(await coerce(file(), 'a file name')).toEqual({ failure: [{ rule: 'file' }] });
    expect(await coerce(file(), { kind: 'something-else' })).toEqual({ failure: [{ rule: 'file' }] });
  });

  it('string() normalises to NFC only when asked', async () => {
    const decomposed = '\u1112\u1161\u11ab';
    expect(await coerce(string({ normalize: 'NFC' }), decomposed)).toEqual({ value: '한' });
    expect(await coerce(string(), decomposed)).toEqual({ value: decomposed });
  });
});

describe('rules by field kind', () => {
  async function check(list: Parameters<typeof validate>[0], value: unknown) {
    return validate(list, { field: value }, { lookups: lookups() }).then(
      () => 'ok',
      (error: ValidationError) => error.failures.field,
    );
  }

  it('max and min count code points in strings', async () => {
    const list = rules({ field: string().min(2).max(3) });
    expect(await check(list, '홍길동')).toBe('ok');
    expect(await check(list, '😀😀')).toBe('ok');
    expect(await check(list, '홍길동님')).toEqual([{ rule: 'max.string', params: { max: 3 } }]);
    expect(await check(list, '😀')).toEqual([{ rule: 'min.string', params: { min: 2 } }]);
  });

  it('max and min compare integers by value', async () => {
    const list = rules({ field: integer().min(1).max(100) });
    expect(await check(list, '1')).toBe('ok');
    expect(await check(list, '100')).toBe('ok');
    expect(await check(list, '0')).toEqual([{ rule: 'min.numeric', params: { min: 1 } }]);
    expect(await check(list, '101')).toEqual([{ rule: 'max.numeric', params: { max: 100 } }]);
  });

  it('max and min count array items', async () => {
    const list = rules({ field: stringArray().min(1).max(2) });
    expect(await check(list, ['a', 'b'])).toBe('ok');
    expect(await check(list, [])).toEqual([{ rule: 'min.array', params: { min: 1 } }]);
    expect(await check(list, ['a', 'b', 'c'])).toEqual([{ rule: 'max.array', params: { max: 2 } }]);
  });

  it('max measures files in kilobytes, and a truncated upload is always too large', async () => {
    const list = rules({ field: file().max(1) });
    expect(await check(list, upload(1024))).toBe('ok');
    expect(await check(list, upload(1025))).toEqual([{ rule: 'max.file', params: { max: 1 } }]);
    expect(await check(list, upload(10, true))).toEqual([{ rule: 'max.file', params: { max: 1 } }]);
  });

  it('in compares with the coerced value', async () => {
    const list = rules({ field: integer().in([0, 1]) });
    expect(await check(list, '1')).toBe('ok');
    expect(await check(list, 0)).toBe('ok');
    expect(await check(list, '2')).toEqual([{ rule: 'in' }]);
  });

  it('pattern must match and email must be a valid address', async () => {
    expect(await check(rules({ field: string().pattern(/^a+$/) }), 'aaa')).toBe('ok');
    expect(await check(rules({ field: string().pattern(/^a+$/) }), 'aab')).toEqual([{ rule: 'regex' }]);
    expect(await check(rules({ field: string().email() }), 'a@b.co')).toBe('ok');
    expect(await check(rules({ field: string().email() }), 'a@b')).toEqual([{ rule: 'email' }]);
  });

  it('runs rules in the order they were added', async () => {
    const a = rules({ field: string().pattern(/^\d+$/).max(2) });
    const b = rules({ field: string().max(2).pattern(/^\d+$/) });
    expect(await check(a, 'abc')).toEqual([{ rule: 'regex' }]);
    expect(await check(b, 'abc')).toEqual([{ rule: 'max.string', params: { max: 2 } }]);
  });
});

describe('Field immutability', () => {
  it('never changes a shared field when a rule list derives from it', async () => {
    const shared = string().max(5);
    const strict = shared.required().min(3);
    const loose = rules({ field: shared });
    await expect(validate(loose, {}, { lookups: lookups() })).resolves.toEqual({});
    await expect(validate(loose, { field: 'a' }, { lookups: lookups() })).resolves.toEqual({ field: 'a' });
    expect(shared.spec.rules).toHaveLength(1);
    expect(shared.spec.presence).toEqual({ type: 'optional' });
    expect(strict.spec.rules).toHaveLength(2);
    expect(strict.spec.presence).toEqual({ type: 'required' });
  });
});
