import { createCipheriv, createDecipheriv, createHash, createHmac, hkdfSync, randomBytes } from 'node:crypto';
import type { Executor } from '../../db/transaction.js';
import { type RuleFailure, ValidationError } from '../../errors.js';

/** The header, and the name its 422s are reported under. */
export const IDEMPOTENCY_HEADER = 'Idempotency-Key';

/** 16–255 characters of the URL-safe alphabet: room for a UUID or 128+ random bits, nothing to escape. */
const KEY_ALPHABET = /^[A-Za-z0-9_-]*$/;
const KEY_MIN = 16;
const KEY_MAX = 255;

/**
 * The request's Idempotency-Key, if it sent one; a 422 naming `Idempotency-Key` when it is malformed. A
 * header sent twice arrives joined by ", ", which the alphabet refuses.
 */
export function idempotencyKeyOf(headers: Record<string, string | string[] | undefined>): string | undefined {
  const value = headers[IDEMPOTENCY_HEADER.toLowerCase()];
  if (value === undefined || value === '') return undefined;
  const key = Array.isArray(value) ? value.join(', ') : value;
  const failure: RuleFailure | undefined = !KEY_ALPHABET.test(key)
    ? { rule: 'regex' }
    : key.length < KEY_MIN
      ? { rule: 'min.string', params: { min: KEY_MIN } }
      : key.length > KEY_MAX
        ? { rule: 'max.string', params: { max: KEY_MAX } }
        : undefined;
  if (failure) throw new ValidationError({ [IDEMPOTENCY_HEADER]: [failure] });
  return key;
}

/**
 * Parameters as one stable text: object keys sorted, an uploaded file (any byte buffer) by the SHA-256 of
 * its bytes, so that a retry of the same request, however its body was encoded, has the same fingerprint.
 */
function canonical(value: unknown): unknown {
  if (value instanceof Uint8Array) return { sha256: createHash('sha256').update(value).digest('hex') };
  if (Array.isArray(value)) return value.map(canonical);
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, inner]) => inner !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return Object.fromEntries(entries.map(([name, inner]) => [name, canonical(inner)]));
  }
  return value;
}

const IV_BYTES = 12;
const TAG_BYTES = 16;

/**
 * One keyed request, and everything derived from its key. Only a SHA-256 of (endpoint, scope, key) is stored
 * to find it; the fingerprint of its parameters is an HMAC and its answer is encrypted (AES-256-GCM), both
 * under keys derived from the Idempotency-Key with HKDF: what is stored can be read, or even matched against
 * a guessed password, only by someone holding the key — the client that sent it.
 */
export class IdempotentRequest {
  readonly keyHash: Buffer;
  readonly fingerprint: Buffer;
  readonly #answerKey: Buffer;

  /**
   * `scope`: who the key belongs to (the lower-cased email of a sign-up, the signed-in user's id): the same
   * key from someone else is another key.
   */
  constructor(endpoint: string, scope: string, key: string, parameters: unknown) {
    this.keyHash = createHash('sha256').update(`${endpoint}\0${scope}\0${key}`, 'utf8').digest();
    const derive = (purpose: string) =>
      Buffer.from(hkdfSync('sha256', key, this.keyHash, `accounts idempotency ${purpose}`, 32));
    this.#answerKey = derive('answer');
    this.fingerprint = createHmac('sha256', derive('fingerprint'))
      .update(JSON.stringify(canonical(parameters)))
      .digest();
  }

  /** The answer as stored: IV, tag, ciphertext of its JSON. */
  seal(answer: unknown): Buffer {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.#answerKey, iv);
    cipher.setAAD(this.keyHash);
    const body = Buffer.concat([cipher.update(JSON.stringify(answer), 'utf8'), cipher.final()]);
    return Buffer.concat([iv, cipher.getAuthTag(), body]);
  }

  /** The stored answer; throws when it was not sealed under this key (it cannot be, short of a collision). */
  open<T>(sealed: Uint8Array): T {
    const bytes = Buffer.from(sealed);
    const decipher = createDecipheriv('aes-256-gcm', this.#answerKey, bytes.subarray(0, IV_BYTES));
    decipher.setAAD(this.keyHash);
    decipher.setAuthTag(bytes.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
    const text = Buffer.concat([decipher.update(bytes.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]);
    return JSON.parse(text.toString('utf8')) as T;
  }
}

/**
 * Writes the keyed request's record inside the write's own transaction: `userId` is the user the write made
 * or acted for, `answer` what the request answers.
 */
export type AnswerRecorder<T> = (trx: Executor, userId: string, answer: T) => Promise<void>;

/** What a use case needs to make one write idempotent (the idempotency module's service, handed in). */
export interface IdempotentWrites {
  /**
   * Without a request, just `write(undefined)`. With one: the stored answer if the key was used before (a
   * 422 if with other parameters); else `write(record)`, which must call `record` inside its transaction;
   * and if that fails because a concurrent request with the key committed first, that request's answer.
   */
  once<T>(
    request: IdempotentRequest | undefined,
    write: (record?: AnswerRecorder<T>) => Promise<T>,
  ): Promise<T>;
}
