import { createHmac, timingSafeEqual } from 'node:crypto';

/** Where a page of a user's activity ends, in the list's keyset order: (at, id), both descending. */
export interface ActivityCursor {
  at: Date;
  id: string;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const BASE64URL = /^[A-Za-z0-9_-]+$/;
/** Far above any cursor we make (~110 characters); a hostile one costs nothing to refuse. */
const MAX_CURSOR_LENGTH = 512;
/** 128 bits of HMAC-SHA256: a client cannot make a cursor we did not. */
const MAC_BYTES = 16;
/** Domain separation: the key signs activity cursors of this format and nothing else. */
const MAC_LABEL = 'activity-cursor:v1:';
/** Timestamps a cursor may carry: 1970 … 2200, in milliseconds. */
const MAX_MILLIS = 7_258_118_400_000;

function mac(key: Uint8Array, payload: string): Buffer {
  return createHmac('sha256', key)
    .update(MAC_LABEL + payload)
    .digest()
    .subarray(0, MAC_BYTES);
}

/** An opaque string for the client: base64url(JSON of the sort key) "." base64url(HMAC of it). */
export function encodeActivityCursor(key: Uint8Array, cursor: ActivityCursor): string {
  const payload = Buffer.from(JSON.stringify({ t: cursor.at.getTime(), i: cursor.id })).toString('base64url');
  return `${payload}.${mac(key, payload).toString('base64url')}`;
}

function fromWire(value: unknown): ActivityCursor | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const { t, i, ...rest } = value as Record<string, unknown>;
  if (Object.keys(rest).length > 0 || typeof i !== 'string' || !UUID.test(i)) return undefined;
  if (!Number.isSafeInteger(t) || (t as number) < 0 || (t as number) > MAX_MILLIS) return undefined;
  return { at: new Date(t as number), id: i };
}

/**
 * The cursor a string stands for, or undefined for anything we did not make: a wrong shape, a bad signature
 * (checked in constant time, before the payload is parsed), or a payload that is not exactly a cursor.
 */
export function decodeActivityCursor(key: Uint8Array, text: string): ActivityCursor | undefined {
  if (text.length > MAX_CURSOR_LENGTH) return undefined;
  const [payload = '', signature = '', ...extra] = text.split('.');
  if (extra.length > 0 || !BASE64URL.test(payload) || !BASE64URL.test(signature)) return undefined;
  const given = Buffer.from(signature, 'base64url');
  if (given.length !== MAC_BYTES || given.toString('base64url') !== signature) return undefined;
  if (!timingSafeEqual(given, mac(key, payload))) return undefined;
  try {
    return fromWire(JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')));
  } catch {
    return undefined;
  }
}

/** Encodes and decodes cursors with the key every instance shares (migration 0016), loaded on first use. */
export class ActivityCursorCodec {
  #key: Promise<Uint8Array> | undefined;

  constructor(private readonly loadKey: () => Promise<Uint8Array>) {}

  private key(): Promise<Uint8Array> {
    this.#key ??= this.loadKey().catch((error: unknown) => {
      // Not cached when it failed (the database was down, say): the next request tries again.
      this.#key = undefined;
      throw error;
    });
    return this.#key;
  }

  async encode(cursor: ActivityCursor): Promise<string> {
    return encodeActivityCursor(await this.key(), cursor);
  }

  async decode(text: string): Promise<ActivityCursor | undefined> {
    return decodeActivityCursor(await this.key(), text);
  }
}
