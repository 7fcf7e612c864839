import { describe, expect, it } from 'vitest';
import {
  type MultipartPart,
  multipartToObject,
  parameterBag,
  parsePhpStyle,
  phpTrim,
} from '../../src/http/params.js';
import type { UploadedFile } from '../../src/validation/types.js';
import { CLEARED } from '../../src/validation/types.js';

describe('parsePhpStyle', () => {
  it('reads plain, array and nested keys the way PHP does', () => {
    expect(parsePhpStyle('a=1&exclude[]=x&exclude[]=y&list[0]=p&list[1]=q&map[k]=v')).toEqual({
      a: '1',
      exclude: ['x', 'y'],
      list: ['p', 'q'],
      map: { k: 'v' },
    });
  });

  it('decodes percent escapes and plus signs', () => {
    expect(parsePhpStyle('email=a%2Bb%40c.co&name=Kim+Lee&ko=%ED%99%8D')).toEqual({
      email: 'a+b@c.co',
      name: 'Kim Lee',
      ko: '홍',
    });
  });

  it('never writes to Object.prototype', () => {
    const parsed = parsePhpStyle('__proto__[polluted]=yes&constructor[prototype][polluted]=yes&a=1');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.getPrototypeOf(parsed)).toBe(Object.prototype);
    expect(parsed.a).toBe('1');
  });

  it('stops building arrays past 100 items and trees past 5 levels', () => {
    expect(parsePhpStyle('ids[500]=x').ids).toEqual({ 500: 'x' });
    const deep = parsePhpStyle('a[b][c][d][e][f][g][h]=x');
    expect(deep).toEqual({ a: { b: { c: { d: { e: { f: { '[g][h]': 'x' } } } } } } });
  });

  it('keeps at most 1000 parameters', () => {
    const query = Array.from({ length: 1500 }, (_, i) => `p${i}=${i}`).join('&');
    expect(Object.keys(parsePhpStyle(query))).toHaveLength(1000);
  });
});

describe('phpTrim', () => {
  it.each([
    ['  kim  ', 'kim'],
    ['\t\n\r\u0000\u000bkim\u000b\u0000\r\n\t', 'kim'],
    ['k i m', 'k i m'],
    ['\u00a0kim\u00a0', '\u00a0kim\u00a0'],
    ['\u3000kim', '\u3000kim'],
    ['   ', ''],
    ['', ''],
  ])('trims %j to %j (PHP trim set only)', (input, output) => {
    expect(phpTrim(input)).toBe(output);
  });
});

describe('parameterBag', () => {
  it('merges query and body, the body winning', () => {
    expect(parameterBag({ a: 'query', b: 'query' }, { b: 'body', c: 'body' })).toEqual({
      a: 'query',
      b: 'body',
      c: 'body',
    });
  });

  it('trims strings and marks empty ones as cleared (absent to every rule), as Laravel middleware does', () => {
    expect(parameterBag({}, { email: '  a@b.co ', username: '   ', slug: '', bio: null })).toEqual({
      email: 'a@b.co',
      username: CLEARED,
      slug: CLEARED,
      bio: CLEARED,
    });
  });

  it('never trims a field whose name contains "password"', () => {
    expect(
      parameterBag({}, { password: '  secret  ', current_password: ' old ', new_Password_confirm: ' x ' }),
    ).toEqual({ password: '  secret  ', current_password: ' old ', new_Password_confirm: ' x ' });
  });

  it('still counts an empty password as absent', () => {
    expect(parameterBag({}, { password: '' })).toEqual({ password: CLEARED });
    // …but a password of spaces is a password: never trimmed, so not empty.
    expect(parameterBag({}, { password: '   ' })).toEqual({ password: '   ' });
  });

  it('trims array items and drops the empty ones', () => {
    expect(parameterBag({ exclude: [' a ', '', '  ', 'b'] }, {})).toEqual({ exclude: ['a', 'b'] });
  });

  it('normalises nested objects and keeps numbers and booleans as they are', () => {
    expect(parameterBag({}, { gender: 1, agree: true, meta: { note: ' x ', empty: '' } })).toEqual({
      gender: 1,
      agree: true,
      meta: { note: 'x' },
    });
  });

  it('ignores a body that is not an object (a JSON array or string, a raw buffer)', () => {
    expect(parameterBag({ a: '1' }, ['x'])).toEqual({ a: '1' });
    expect(parameterBag({ a: '1' }, 'email=x')).toEqual({ a: '1' });
    expect(parameterBag({ a: '1' }, Buffer.from('email=x'))).toEqual({ a: '1' });
    expect(parameterBag(undefined, undefined)).toEqual({});
  });

  it('passes uploaded files through untouched', () => {
    const upload: UploadedFile = {
      kind: 'uploaded-file',
      fieldName: 'profile_picture',
      fileName: ' a.png ',
      declaredType: 'image/png',
      data: Buffer.from([1, 2, 3]),
      truncated: false,
    };
    expect(parameterBag({}, { profile_picture: upload }).profile_picture).toBe(upload);
  });
});

describe('multipartToObject', () => {
  const upload: UploadedFile = {
    kind: 'uploaded-file',
    fieldName: 'picture',
    fileName: 'p.png',
    declaredType: 'image/png',
    data: Buffer.from([1]),
    truncated: false,
  };

  it('reads text fields through the PHP-style parser and files under their field name', () => {
    const body: Record<string, MultipartPart | MultipartPart[]> = {
      email: { type: 'field', fieldname: 'email', value: 'a@b.co' },
      'exclude[]': [
        { type: 'field', fieldname: 'exclude[]', value: 'x' },
        { type: 'field', fieldname: 'exclude[]', value: 'y&z=1' },
      ],
      picture: { type: 'file', fieldname: 'picture', filename: 'p.png', upload },
    };
    expect(multipartToObject(body)).toEqual({ email: 'a@b.co', exclude: ['x', 'y&z=1'], picture: upload });
  });

  it('collects files named images[] or images[N] into a list, in the order they came', () => {
    const file = (name: string): UploadedFile => ({ ...upload, fieldName: name, fileName: `${name}.png` });
    const [a, b, c] = [file('a'), file('b'), file('c')];
    const listed: Record<string, MultipartPart | MultipartPart[]> = {
      'images[]': [
        { type: 'file', fieldname: 'images[]', upload: a },
        { type: 'file', fieldname: 'images[]', upload: b },
      ],
      'more[0]': { type: 'file', fieldname: 'more[0]', upload: c },
      'more[1]': { type: 'file', fieldname: 'more[1]', upload: a },
      single: [
        { type: 'file', fieldname: 'single', upload: a },
        { type: 'file', fieldname: 'single', upload: b },
      ],
    };
    // A name without brackets keeps its last file, as PHP does.
    expect(multipartToObject(listed)).toEqual({ images: [a, b], more: [c, a], single: b });
  });

  it('drops file parts that carried nothing, and keeps a parsed JSON part as it is (for its rule to judge)', () => {
    const body: Record<string, MultipartPart | MultipartPart[]> = {
      empty: { type: 'file', fieldname: 'empty', filename: '' },
      odd: { type: 'field', fieldname: 'odd', value: 42 },
    };
    expect(multipartToObject(body)).toEqual({ odd: 42 });
  });

  it('cannot be used to pollute Object.prototype', () => {
    multipartToObject({
      '__proto__[polluted]': { type: 'field', fieldname: '__proto__[polluted]', value: 'yes' },
    });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
