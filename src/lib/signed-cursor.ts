import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * A keyset cursor's wire form: `label` separates the key's uses (a cursor of one list is never valid for
 * another), `toWire` gives the sort key as a small JSON object, and `fromWire` takes back exactly that shape or
 * gives undefined.
 */
export interface CursorFormat<Cursor> {
  label: string;
  toWire(cursor: Cursor): Record<string, unknown>;
  fromWire(object: Record<string, unknown>): Cursor | undefined;
}

export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const BASE64URL = /^[A-Za-z0-9_-]+$/;
/** Far above any cursor we make (~150 characters), low enough that decoding a hostile one costs nothing. */
export const MAX_CURSOR_LENGTH = 512;
/** 128 bits of HMAC-SHA256: a client cannot make a cursor we did not. */
const MAC_BYTES = 16;
/** Timestamps a cursor may carry: 1970 … 2200, in milliseconds. */
const MAX_MILLIS = 7_258_118_400_000;

/** A wire timestamp (milliseconds in the range above) as a Date, or undefined. */
export function millis(value: unknown): Date | undefined {
  return Number.isSafeInteger(value) && (value as number) >= 0 && (value as number) <= MAX_MILLIS
    ? new Date(value as number)
    : undefined;
}

/** True when the object has exactly these keys, no more and no fewer. */
export function hasExactly(object: Record<string, unknown>, keys: string[]): boolean {
  const own = Object.keys(object);
  return own.length === keys.length && keys.every((key) => own.includes(key));
}

function mac(key: Uint8Array, label: string, payload: string): Buffer {
  return createHmac('sha256', key)
    .update(label + payload)
    .digest()
    .subarray(0, MAC_BYTES);
}

/** An opaque string for the client: base64url(JSON of the sort key) "." base64url(HMAC of it). */
export function encodeSignedCursor<Cursor>(
  format: CursorFormat<Cursor>,
  key: Uint8Array,
  cursor: Cursor,
): string {
  const payload = Buffer.from(JSON.stringify(format.toWire(cursor))).toString('base64url');
  return `${payload}.${mac(key, format.label, payload).toString('base64url')}`;
}

/**
 * The cursor a string stands for, or undefined for anything we did not make: a wrong shape, a bad signature
 * (checked in constant time, before the payload is parsed), or a payload that is not exactly a cursor.
 */
export function decodeSignedCursor<Cursor>(
  format: CursorFormat<Cursor>,
  key: Uint8Array,
  text: string,
): Cursor | undefined {
  if (text.length > MAX_CURSOR_LENGTH) return undefined;
  const parts = text.split('.');
  if (parts.length !== 2) return undefined;
  const [payload = '', signature = ''] = parts;
  if (!BASE64URL.test(payload) || !BASE64URL.test(signature)) return undefined;
  const given = Buffer.from(signature, 'base64url');
  // Re-encoding must give back the same text: no padding, no stray bits in the last character.
  if (given.length !== MAC_BYTES || given.toString('base64url') !== signature) return undefined;
  if (!timingSafeEqual(given, mac(key, format.label, payload))) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  return format.fromWire(value as Record<string, unknown>);
}

/**
 * Encodes and decodes cursors with a key the database keeps for every instance, loaded on first use and then
 * held for the life of the process.
 */
export class SignedCursorCodec<Cursor> {
  #key: Promise<Uint8Array> | undefined;

  constructor(
    private readonly format: CursorFormat<Cursor>,
    private readonly loadKey: () => Promise<Uint8Array>,
  ) {}

  private key(): Promise<Uint8Array> {
    this.#key ??= this.loadKey().catch((error: unknown) => {
      // Not cached when it failed (the database was down, say): the next request tries again.
      this.#key = undefined;
      throw error;
    });
    return this.#key;
  }

  async encode(cursor: Cursor): Promise<string> {
    return encodeSignedCursor(this.format, await this.key(), cursor);
  }

  async decode(text: string): Promise<Cursor | undefined> {
    return decodeSignedCursor(this.format, await this.key(), text);
  }
}
