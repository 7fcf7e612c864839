import { describe, expect, it } from 'vitest';
import type { ValidationError } from '../../src/errors.js';
import { validate } from '../../src/validation/engine.js';
import {
  accepted,
  boolean,
  file,
  fileArray,
  integer,
  string,
  stringArray,
} from '../../src/validation/field-kinds.js';
import { rules } from '../../src/validation/rule-list.js';
import type { UploadedFile } from '../../src/validation/types.js';

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

describe('field types', () => {
  async function coerce(field: Parameters<typeof rules>[0][string], value: unknown) {
    const list = rules({ field });
    return validate(list, { field: value }).then(
      (params) => ({ value: (params as Record<string, unknown>).field }),
      (error: ValidationError) => ({ failure: error.failures.field }),
    );
  }

  it.each([
    ['42', 42],
    ['-3', -3],
    ['0', 0],
    [5, 5],
    [-0, -0],
    ['999999999999999', 999_999_999_999_999],
  ])('integer() reads %j as %d', async (input, expected) => {
    expect(await coerce(integer(), input)).toEqual({ value: expected });
  });

  it.each([
    '1.0',
    // Plain decimals only: Laravel's `in:0,1` compares strings, so `+1` and `01` are not 1.
    '+7',
    '007',
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

  it.each(['on', 'yes', '1', 'true', true, 1])('accepted() passes %j', async (input) => {
    expect(await coerce(accepted(), input)).toEqual({ value: true });
  });

  it.each(['off', 'no', '0', 'false', 'agree', 'ON', 'True', false, 0, 2])(
    'accepted() refuses %j',
    async (input) => {
      expect(await coerce(accepted(), input)).toEqual({ failure: [{ rule: 'accepted' }] });
    },
  );

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
    return validate(list, { field: value }).then(
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

describe('fileArray()', () => {
  const run = (field: ReturnType<typeof fileArray>, value: unknown) =>
    validate(rules({ images: field }), { images: value }).then(
      (params) => ({ value: params.images }),
      (error: ValidationError) => ({ failure: error.failures.images }),
    );

  it('takes a list of files, and one file as a list of one', async () => {
    const [a, b] = [upload(1), upload(2)];
    expect(await run(fileArray(), [a, b])).toEqual({ value: [a, b] });
    expect(await run(fileArray(), a)).toEqual({ value: [a] });
  });

  it('refuses text, or a list holding anything but files, as not an array of files', async () => {
    for (const value of ['x', ['x'], [upload(1), 'x'], { 0: upload(1) }]) {
      expect(await run(fileArray(), value)).toEqual({ failure: [{ rule: 'array' }] });
    }
  });

  it('counts items for max() and min()', async () => {
    expect(await run(fileArray().max(2), [upload(1), upload(1), upload(1)])).toEqual({
      failure: [{ rule: 'max.array', params: { max: 2 } }],
    });
    expect(await run(fileArray().min(2), [upload(1)])).toEqual({
      failure: [{ rule: 'min.array', params: { min: 2 } }],
    });
  });
});
