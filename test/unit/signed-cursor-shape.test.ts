import { createHmac, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  type CursorFormat,
  decodeSignedCursor,
  encodeSignedCursor,
  hasExactly,
  MAX_CURSOR_LENGTH,
  millis,
  SignedCursorCodec,
  UUID,
} from '../../src/lib/signed-cursor.js';

/**
 * A format that takes back whatever the payload held, so only the codec's own shape checks stand between
 * a signed text and a cursor: each check below is tested with a text whose signature is right.
 */
function anything(): CursorFormat<{ got: unknown }> {
  return {
    label: 'test-cursor:v1:',
    toWire: (cursor) => ({ got: cursor.got }),
    fromWire: (object) => ({ got: object }),
  };
}

/** Signs any payload text the way the codec does (16 bytes of HMAC-SHA256 over label and payload). */
function sign(key: Uint8Array, payload: string, bytes = 16): string {
  return createHmac('sha256', key)
    .update(`test-cursor:v1:${payload}`)
    .digest()
    .subarray(0, bytes)
    .toString('base64url');
}

const wire = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

describe('decodeSignedCursor: the shape checks behind the signature', () => {
  it('takes back what it made, and a text of exactly the length cap', () => {
    const key = randomBytes(32);
    const format = anything();
    expect(decodeSignedCursor(format, key, encodeSignedCursor(format, key, { got: 'x' }))).toEqual({
      got: { got: 'x' },
    });
    // 512 characters: a payload of 489 (its last character carries no whole byte), a dot, 22 of signature.
    const payload = `${wire({ p: 'a'.repeat(358) })}A`;
    expect(payload).toHaveLength(MAX_CURSOR_LENGTH - 23);
    const atCap = `${payload}.${sign(key, payload)}`;
    expect(atCap).toHaveLength(MAX_CURSOR_LENGTH);
    expect(decodeSignedCursor(format, key, atCap)).toEqual({ got: { p: 'a'.repeat(358) } });
  });

  it('refuses a rightly signed text one character over the cap', () => {
    const key = randomBytes(32);
    const payload = wire({ p: 'a'.repeat(359) });
    const text = `${payload}.${sign(key, payload)}`;
    expect(text).toHaveLength(MAX_CURSOR_LENGTH + 1);
    expect(decodeSignedCursor(anything(), key, text)).toBeUndefined();
  });

  it('refuses a third part after a rightly signed text', () => {
    const key = randomBytes(32);
    const payload = wire({ a: 1 });
    expect(decodeSignedCursor(anything(), key, `${payload}.${sign(key, payload)}`)).toEqual({
      got: { a: 1 },
    });
    expect(decodeSignedCursor(anything(), key, `${payload}.${sign(key, payload)}.x`)).toBeUndefined();
  });

  it('refuses a signed payload holding a character outside base64url, first or last', () => {
    const key = randomBytes(32);
    for (const payload of [`!${wire({ a: 1 })}`, `${wire({ a: 1 })}!`, `${wire({ a: 1 })}==`]) {
      // Node's decoder would skip the stray character and read the object.
      expect(Buffer.from(payload, 'base64url').toString()).toBe('{"a":1}');
      expect(decodeSignedCursor(anything(), key, `${payload}.${sign(key, payload)}`)).toBeUndefined();
    }
  });

  it('refuses a signature of the wrong length, and one with stray bits in its last character', () => {
    const key = randomBytes(32);
    const payload = wire({ a: 1 });
    expect(decodeSignedCursor(anything(), key, `${payload}.${sign(key, payload, 32)}`)).toBeUndefined();
    const signature = sign(key, payload);
    // The 22nd character carries 2 bits of the MAC and 4 stray ones: flipping the lowest bit decodes alike.
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const last = alphabet[alphabet.indexOf(signature.at(-1) ?? '') ^ 1] ?? '';
    const stray = `${signature.slice(0, -1)}${last}`;
    expect(Buffer.from(stray, 'base64url')).toEqual(Buffer.from(signature, 'base64url'));
    expect(decodeSignedCursor(anything(), key, `${payload}.${stray}`)).toBeUndefined();
  });

  it('refuses a rightly signed payload that is not a JSON object', () => {
    const key = randomBytes(32);
    for (const payload of [
      wire(5),
      wire(null),
      wire([1]),
      wire('s'),
      Buffer.from('{').toString('base64url'),
    ]) {
      expect(decodeSignedCursor(anything(), key, `${payload}.${sign(key, payload)}`)).toBeUndefined();
    }
  });

  it('signs the label with the payload, so another label never verifies', () => {
    const key = randomBytes(32);
    const other: CursorFormat<{ got: unknown }> = { ...anything(), label: 'other-cursor:v1:' };
    const text = encodeSignedCursor(anything(), key, { got: 1 });
    expect(text).toBe(`${wire({ got: 1 })}.${sign(key, wire({ got: 1 }))}`);
    expect(decodeSignedCursor(other, key, text)).toBeUndefined();
  });
});

describe('millis, hasExactly and UUID', () => {
  it('takes whole milliseconds from 1970 to 2200 only', () => {
    expect(millis(0)).toEqual(new Date(0));
    expect(millis(7_258_118_400_000)).toEqual(new Date(7_258_118_400_000));
    for (const value of [-1, 7_258_118_400_001, 1.5, '5', null, undefined, Number.NaN]) {
      expect(millis(value)).toBeUndefined();
    }
  });

  it('wants exactly the keys named', () => {
    expect(hasExactly({ a: 1, b: 2 }, ['a', 'b'])).toBe(true);
    expect(hasExactly({ a: 1 }, ['a', 'b'])).toBe(false);
    expect(hasExactly({ a: 1, b: 2, c: 3 }, ['a', 'b'])).toBe(false);
    expect(hasExactly({ a: 1, c: 3 }, ['a', 'b'])).toBe(false);
  });

  it('matches a lower-case UUID and nothing around or beside it', () => {
    const id = '0190c1f4-0b7e-7c3a-9d2e-4f5a6b7c8d9e';
    expect(UUID.test(id)).toBe(true);
    for (const text of [
      `x${id}`,
      `${id}x`,
      id.toUpperCase(),
      id.slice(1),
      id.replaceAll('-', ''),
      `${id.slice(0, -1)}g`,
    ]) {
      expect(UUID.test(text)).toBe(false);
    }
  });
});

describe('SignedCursorCodec', () => {
  it('loads its key once, and again after a failed load', async () => {
    const key = randomBytes(32);
    const loads: string[] = [];
    let fail = true;
    const codec = new SignedCursorCodec(anything(), async () => {
      loads.push(fail ? 'failed' : 'loaded');
      if (fail) throw new Error('database down');
      return key;
    });
    await expect(codec.encode({ got: 1 })).rejects.toThrow('database down');
    fail = false;
    const text = await codec.encode({ got: 1 });
    expect(text).toBe(encodeSignedCursor(anything(), key, { got: 1 }));
    expect(await codec.decode(text)).toEqual({ got: { got: 1 } });
    expect(loads).toEqual(['failed', 'loaded']);
  });
});
