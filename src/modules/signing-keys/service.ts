import {
  type CryptoKey,
  calculateJwkThumbprint,
  exportJWK,
  exportPKCS8,
  generateKeyPair,
  importPKCS8,
} from 'jose';
import type { AccessTokenAlg } from '../../config/access-tokens.js';
import type { Executor } from '../../db/transaction.js';
import type { SecretBox } from '../../lib/secret-box.js';
import type { SigningKeyRow, SigningKeysRepo } from './repo.js';
import { droppable, publishedAt, rotation, signingKeyAt } from './schedule.js';

/** A key as `accounts keys list` shows it: never its private part. */
export interface SigningKeyView {
  kid: string;
  alg: string;
  created_at: string;
  publish_from: string;
  sign_from: string;
  retire_after: string | null;
  /** At the time of the listing. */
  state: 'pending' | 'signing' | 'published' | 'retired';
}

export interface SigningKey {
  kid: string;
  alg: string;
  privateKey: CryptoKey;
}

export interface SigningKeysOptions {
  db: Executor;
  repo: SigningKeysRepo;
  /** SECRETS_KEY's box; undefined = no key can be made or used. */
  box: SecretBox | undefined;
  alg: AccessTokenAlg;
  ttlMs: number;
  publishAheadMs: number;
  now?: () => Date;
}

/** How long an instance trusts the keys it read: far inside the publish-ahead, so a new key signs on time. */
const MAX_CACHE_MS = 30_000;

const sealContext = (kid: string) => `signing-key:${kid}`;

/**
 * The keys access tokens are signed with, shared by every instance through the database: each reads the
 * schedule (cached briefly), and the key that signs at a moment is decided by the schedule alone, so every
 * instance signs with the same one, and switches at the same moment after a rotation.
 */
export class SigningKeys {
  private cached: { rows: SigningKeyRow[]; until: number } | undefined;
  private loading: Promise<SigningKeyRow[]> | undefined;
  private readonly privateKeys = new Map<string, CryptoKey>();
  private readonly now: () => Date;
  private readonly cacheMs: number;

  constructor(private readonly options: SigningKeysOptions) {
    this.now = options.now ?? (() => new Date());
    this.cacheMs = Math.min(MAX_CACHE_MS, Math.floor(options.publishAheadMs / 4));
  }

  get configured(): boolean {
    return this.options.box !== undefined;
  }

  /** Seconds a cache may keep the JWKS: half the publish-ahead, at most five minutes. */
  get jwksMaxAgeSeconds(): number {
    return Math.floor(Math.min(300_000, this.options.publishAheadMs / 2) / 1000);
  }

  /** The key that signs now; the first key is made (once, whichever instance gets there first) if none. */
  async current(): Promise<SigningKey> {
    let row = signingKeyAt(await this.rows(), this.now());
    if (row === undefined) {
      await this.ensureFirst();
      row = signingKeyAt(await this.rows(true), this.now());
    }
    if (row === undefined) throw new Error('no signing key after making the first one');
    return { kid: row.kid, alg: row.alg, privateKey: await this.privateKey(row) };
  }

  /** The public keys published now, as JWKS entries (the first key is made if there is none). */
  async published(): Promise<Record<string, string>[]> {
    let rows = await this.rows();
    if (rows.length === 0 && this.configured) {
      await this.ensureFirst();
      rows = await this.rows(true);
    }
    return publishedAt(rows, this.now()).map((row) => row.publicJwk);
  }

  /** Every key with its state now. */
  async list(): Promise<SigningKeyView[]> {
    const now = this.now();
    const rows = await this.rows(true);
    const signing = signingKeyAt(rows, now);
    const published = new Set(publishedAt(rows, now).map((row) => row.kid));
    return rows.map((row) => ({
      kid: row.kid,
      alg: row.alg,
      created_at: row.createdAt.toISOString(),
      publish_from: row.publishFrom.toISOString(),
      sign_from: row.signFrom.toISOString(),
      retire_after: row.retireAfter?.toISOString() ?? null,
      state:
        row.kid === signing?.kid
          ? 'signing'
          : row.signFrom > now
            ? 'pending'
            : published.has(row.kid)
              ? 'published'
              : 'retired',
    }));
  }

  /**
   * Publishes a new key now, to sign after the publish-ahead; the keys before it are retired once their
   * last token has expired, and those already retired are dropped. Serialised with every other writer.
   */
  async rotate(): Promise<SigningKeyView> {
    const kid = await this.options.db.transaction().execute(async (trx) => {
      const repo = this.options.repo.with(trx);
      await repo.lock();
      const now = this.now();
      const rows = await repo.all();
      await repo.delete(droppable(rows, now).map((row) => row.kid));
      const plan = rotation(rows, now, this.options.publishAheadMs, this.options.ttlMs);
      for (const { kid, retireAfter } of plan.retire) await repo.retire(kid, retireAfter);
      return this.insertNew(repo, plan.next.publishFrom, plan.next.signFrom);
    });
    this.cached = undefined;
    const made = (await this.list()).find((view) => view.kid === kid);
    if (made === undefined) throw new Error('the new key is gone');
    return made;
  }

  private async ensureFirst(): Promise<void> {
    await this.options.db.transaction().execute(async (trx) => {
      const repo = this.options.repo.with(trx);
      await repo.lock();
      const now = this.now();
      if (signingKeyAt(await repo.all(), now) !== undefined) return;
      await this.insertNew(repo, now, now);
    });
  }

  private async insertNew(repo: SigningKeysRepo, publishFrom: Date, signFrom: Date): Promise<string> {
    const box = this.options.box;
    if (box === undefined) throw new Error('SECRETS_KEY is needed to make a signing key');
    const { alg } = this.options;
    const pair = await generateKeyPair(alg, { extractable: true });
    const jwk = await exportJWK(pair.publicKey);
    const kid = await calculateJwkThumbprint(jwk);
    const parts = Object.entries(jwk).filter(
      (entry): entry is [string, string] => typeof entry[1] === 'string',
    );
    const publicJwk = { ...Object.fromEntries(parts), kid, alg, use: 'sig' };
    const pkcs8 = await exportPKCS8(pair.privateKey);
    const privateSealed = box.seal(Buffer.from(pkcs8, 'utf8'), sealContext(kid));
    await repo.insert({ kid, alg, publicJwk, privateSealed, publishFrom, signFrom, retireAfter: null });
    return kid;
  }

  private async privateKey(row: SigningKeyRow): Promise<CryptoKey> {
    const known = this.privateKeys.get(row.kid);
    if (known) return known;
    const box = this.options.box;
    if (box === undefined) throw new Error('SECRETS_KEY is needed to sign');
    const pkcs8 = box.open(row.privateSealed, sealContext(row.kid)).toString('utf8');
    const key = await importPKCS8(pkcs8, row.alg);
    this.privateKeys.set(row.kid, key);
    return key;
  }

  private async rows(fresh = false): Promise<SigningKeyRow[]> {
    const cached = this.cached;
    if (!fresh && cached !== undefined && Date.now() < cached.until) return cached.rows;
    // One read at a time: a burst of requests after the cache ran out waits for the same one. A fresh read
    // (after a write) is its own, never one that began before the write.
    if (fresh) return this.remember(await this.options.repo.all());
    if (this.loading === undefined) {
      this.loading = this.options.repo.all().finally(() => {
        this.loading = undefined;
      });
    }
    return this.remember(await this.loading);
  }

  private remember(rows: SigningKeyRow[]): SigningKeyRow[] {
    this.cached = { rows, until: Date.now() + this.cacheMs };
    return rows;
  }
}
