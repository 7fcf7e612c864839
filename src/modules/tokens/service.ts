import type { UserRow } from '../../db/schema.js';
import type { Executor } from '../../db/transaction.js';
import { newId } from '../../lib/ids.js';
import { hashApiToken, newApiToken } from '../../lib/tokens.js';
import type { TokensRepo } from './repo.js';

export interface IssuedToken {
  id: string;
  token: string;
}

export interface Authenticated {
  user: UserRow;
  tokenId: string;
}

const DAY_MS = 86_400_000;

export class TokensService {
  constructor(
    private readonly tokens: TokensRepo,
    private readonly ttlDays: number | undefined,
  ) {}

  /** A new token for the user, written with `trx` so it commits (or not) with the rest of the request. */
  async issue(trx: Executor, userId: string, name: string | undefined): Promise<IssuedToken> {
    const token = newApiToken();
    const id = newId();
    await this.tokens.with(trx).insert({
      id,
      userId,
      tokenHash: hashApiToken(token),
      name: name?.slice(0, 255) ?? null,
      expiresAt: this.ttlDays === undefined ? null : new Date(Date.now() + this.ttlDays * DAY_MS),
    });
    return { id, token };
  }

  /** The user a presented token belongs to, or undefined for an unknown, revoked or expired token. */
  async authenticate(token: string): Promise<Authenticated | undefined> {
    if (token.length > 512) return undefined;
    return this.tokens.findLiveOwner(hashApiToken(token));
  }

  async revoke(tokenId: string): Promise<void> {
    await this.tokens.delete(tokenId);
  }
}
