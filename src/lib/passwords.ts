import { createRequire } from 'node:module';
import { hash, verify } from '@node-rs/argon2';
import type { HashingPool } from './hashing-pool.js';

/** `Algorithm.Argon2id` of @node-rs/argon2 (an ambient const enum, which isolated modules cannot import). */
const ARGON2ID = 2;

import { isLegacyBcryptHash, verifyLegacyBcrypt } from './legacy-bcrypt.js';

export type HashOperation = 'hash' | 'verify';

/** Told when a hash or verify starts; calls the returned function when it ends (metrics hook). */
export interface HashObserver {
  started(operation: HashOperation): () => void;
}

export interface Argon2Cost {
  memoryKib: number;
  timeCost: number;
  parallelism: number;
}

/**
 * argon2id. The service hashes in a `HashingPool` of worker threads at a lower CPU priority
 * (app/infrastructure.ts): a flood of logins can neither block the event loop nor outrun it for the CPU, and
 * a full queue sheds load with a 503. Without a pool (tools, tests) it runs in this process on libuv's thread
 * pool, off the event loop.
 */
export class PasswordHasher {
  #dummyHash: Promise<string> | undefined;

  constructor(
    private readonly cost: Argon2Cost,
    private readonly observer?: HashObserver,
    private readonly pool?: HashingPool,
  ) {}

  async hash(password: string): Promise<string> {
    const done = this.observer?.started('hash');
    try {
      if (this.pool) return await this.pool.hash(password, this.cost);
      return await hash(password, {
        algorithm: ARGON2ID,
        memoryCost: this.cost.memoryKib,
        timeCost: this.cost.timeCost,
        parallelism: this.cost.parallelism,
      });
    } finally {
      done?.();
    }
  }

  async verify(storedHash: string, password: string): Promise<boolean> {
    // Imported accounts of the old app (docs/IMPORT.md): needsRehash turns them into argon2id at the login.
    if (isLegacyBcryptHash(storedHash)) return verifyLegacyBcrypt(storedHash, password);
    if (!storedHash.startsWith('$argon2')) return false;
    const done = this.observer?.started('verify');
    try {
      // The pool answers false for a malformed hash; a full queue or a timeout is a 503, never "wrong password".
      if (this.pool) return await this.pool.verify(storedHash, password);
      return await verify(storedHash, password).catch(() => false);
    } finally {
      done?.();
    }
  }

  /**
   * Spends the same time as a real verification for accounts that have no password, so a response's timing
   * does not tell a provider-only account from one with a password.
   */
  async verifyNothing(password: string): Promise<false> {
    this.#dummyHash ??= this.hash('timing-equaliser-password');
    await this.verify(await this.#dummyHash, password);
    return false;
  }

  /** A stored hash made with a weaker cost than today's should be replaced at the next successful login. */
  needsRehash(storedHash: string): boolean {
    const match = /^\$argon2id\$v=\d+\$m=(\d+),t=(\d+),p=(\d+)\$/.exec(storedHash);
    if (!match) return true;
    return (
      Number(match[1]) < this.cost.memoryKib ||
      Number(match[2]) < this.cost.timeCost ||
      Number(match[3]) !== this.cost.parallelism
    );
  }
}

/**
 * Mozilla's list as a Set, decoded at the first check. The package's own `test` scans its 50,000-entry array
 * (`indexOf`), which a profile of sign-ups under load showed at ~5 % of the service's samples; the data is
 * the same, read through the same decoder it ships with.
 */
let commonPasswords: Set<string> | undefined;

/**
 * Both modules are CommonJS; `require` reads them the same way under Node and under Vitest (an ESM default
 * import of incremental-encoder is its `exports` object under Node, but its `exports.default` under Vitest).
 */
function decodeCommonPasswords(): Set<string> {
  const require = createRequire(import.meta.url);
  const encoded: string = require('fxa-common-password-list/src/encoded-passwords.js');
  const { Decoder } = (require('incremental-encoder') as IncrementalEncoder).default;
  return new Set(new Decoder().decode(encoded.split('\n')));
}

/** What incremental-encoder exports (a TypeScript module compiled to CommonJS: its API is on `default`). */
interface IncrementalEncoder {
  default: { Decoder: new () => { decode(lines: string[]): string[] } };
}

/**
 * NIST SP 800-63B §5.1.1.2: refuse passwords from lists of commonly used or breached values, and ones
 * derived from the account's own identifiers. The list is Mozilla's (Firefox Accounts) common-password list.
 */
export function isCommonPassword(password: string, identifiers: Array<string | undefined>): boolean {
  const lowered = password.toLowerCase();
  commonPasswords ??= decodeCommonPasswords();
  if (commonPasswords.has(password) || commonPasswords.has(lowered)) return true;
  return identifiers.some((identifier) => identifier !== undefined && identifier.toLowerCase() === lowered);
}
