import type { UserRow } from '../../db/schema.js';
import type { Executor } from '../../db/transaction.js';
import { NotFoundError } from '../../errors.js';
import type { AuthContext } from '../../http/auth-context.js';
import { type Static, t } from '../../http/response-schema.js';
import { deviceName } from '../../lib/device-name.js';
import { newId } from '../../lib/ids.js';
import { iso } from '../../lib/time.js';
import { hashApiToken, newApiToken } from '../../lib/tokens.js';
import type { SessionMethod, SessionRevokedReason } from '../account-events/types.js';
import type { NewToken, TokensRepo } from './repo.js';

export interface IssuedToken {
  id: string;
  token: string;
}

const DAY_MS = 86_400_000;
const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** One session as its owner sees it: never the token itself (only its digest is stored anyway). */
export const tokenShape = t.object({
  id: t.string(),
  created_at: t.dateTime(),
  /** Updated at most once a minute. */
  last_used_at: t.nullable(t.dateTime()),
  expires_at: t.nullable(t.dateTime()),
  /** The User-Agent of the client the token was issued to. */
  user_agent: t.nullable(t.string()),
  /** A readable name of that client parsed from its User-Agent (`Chrome 120 · macOS`), or null. */
  device_name: t.nullable(t.string()),
  /** The device this session last registered through user/device/update, if any. */
  device: t.nullable(t.object({ device_id: t.string(), platform: t.nullable(t.string()) })),
  /** The token this request was made with. */
  current: t.boolean(),
});
export type TokenView = Static<typeof tokenShape>;

/** Who revoked a session: the address and user agent of the request. */
export interface RevokingClient {
  ip: string;
  userAgent: string | undefined;
}

/** Where a revoked session is recorded (the security activity log), after the revocation. */
export interface RevocationLog {
  tokenRevoked(user: UserRow, tokenId: string, client: RevokingClient): Promise<void>;
}

export class TokensService {
  constructor(
    private readonly tokens: TokensRepo,
    private readonly ttlDays: number | undefined,
    private readonly log?: RevocationLog,
  ) {}

  /**
   * A new token for the user, written with `trx` so it commits (or not) with the rest of the request, with
   * its `session.created` event (made by `method`) in the same statement.
   */
  async issue(
    trx: Executor,
    userId: string,
    name: string | undefined,
    method: SessionMethod,
  ): Promise<IssuedToken> {
    const { row, issued } = this.prepareIssue(userId, name);
    await this.tokens.with(trx).insert(row, method);
    return issued;
  }

  /**
   * A new token's row (only its hash) and the token itself, for a caller that writes the row (sign-up) and
   * its `session.created` event (`sessionCreated` of the repo) in its own statement.
   */
  prepareIssue(userId: string, name: string | undefined): { row: NewToken; issued: IssuedToken } {
    const token = newApiToken();
    const id = newId();
    const row = {
      id,
      userId,
      tokenHash: hashApiToken(token),
      name: name?.slice(0, 255) ?? null,
      expiresAt: this.expiry(),
    };
    return { row, issued: { id, token } };
  }

  /**
   * A new token for a sign-in, in one statement, only if the user still has `checkedHash` and is not
   * disabled: both are read under a share lock, so a password change or a disabling that is under way is
   * waited for and then seen (no token), and one that starts later waits for the token and revokes it with
   * the others. Undefined when the check failed (the caller finds out why). Its `session.created` event
   * (a password sign-in's) is written by the same statement.
   */
  async issueIfSignInHolds(
    userId: string,
    checkedHash: string,
    name: string | undefined,
  ): Promise<IssuedToken | undefined> {
    const token = newApiToken();
    const id = newId();
    const issued = await this.tokens.insertIfSignInHolds(
      {
        id,
        userId,
        tokenHash: hashApiToken(token),
        name: name?.slice(0, 255) ?? null,
        expiresAt: this.expiry(),
      },
      checkedHash,
      'password',
    );
    return issued ? { id, token } : undefined;
  }

  private expiry(): Date | null {
    return this.ttlDays === undefined ? null : new Date(Date.now() + this.ttlDays * DAY_MS);
  }

  /** The user a presented token belongs to, or undefined for an unknown, revoked or expired token. */
  async authenticate(token: string): Promise<AuthContext | undefined> {
    if (token.length > 512) return undefined;
    const found = await this.tokens.findLiveOwner(hashApiToken(token));
    if (!found) return undefined;
    // Checked here first so that most requests cost no write at all; the UPDATE re-checks atomically.
    if (found.touchDue) await this.tokens.touch(found.tokenId);
    const { user, tokenId, linkedProviders } = found;
    return { user, tokenId, linkedProviders };
  }

  /** Who a token was issued to, even when it has expired: a device that signed in to that account before. */
  async issuedTo(token: string): Promise<string | undefined> {
    if (token.length > 512) return undefined;
    return this.tokens.findIssuedTo(hashApiToken(token));
  }

  /** Ends the session of the token its own client signs out with (logout). */
  async revoke(tokenId: string): Promise<void> {
    await this.tokens.deleteById(tokenId, 'logout');
  }

  /** The user's sessions, never the tokens themselves (only their digests are stored anyway). */
  async list(auth: AuthContext): Promise<TokenView[]> {
    const { user, tokenId: currentTokenId } = auth;
    const userId = user.id;
    const rows = await this.tokens.listLive(userId);
    return rows.map((row) => ({
      id: row.id,
      created_at: iso(row.created_at),
      last_used_at: row.last_used_at === null ? null : iso(row.last_used_at),
      expires_at: row.expires_at === null ? null : iso(row.expires_at),
      user_agent: row.name,
      device_name: deviceName(row.name) ?? null,
      device: row.device,
      current: row.id === currentTokenId,
    }));
  }

  /**
   * Revokes one of the user's own tokens. Another user's token, an unknown id and a malformed one are the
   * same 404: the answer never tells whether a token id exists.
   */
  async revokeOwn(auth: AuthContext, tokenId: string, client: RevokingClient): Promise<void> {
    if (!UUID_PATTERN.test(tokenId) || !(await this.tokens.deleteOwn(auth.user.id, tokenId, 'revoked'))) {
      throw new NotFoundError('token');
    }
    // Logged after the one DELETE (an unknown id wrote nothing, and logs nothing).
    await this.log?.tokenRevoked(auth.user, tokenId, client);
  }

  /**
   * Operators: revokes a token by its id, whoever owns it. Returns false for an unknown (or malformed) id, so
   * the command can say so.
   */
  async revokeById(tokenId: string): Promise<boolean> {
    return UUID_PATTERN.test(tokenId) && (await this.tokens.deleteById(tokenId, 'revoked'));
  }

  /** Operators: signs out every session of the user; returns how many were revoked. */
  revokeAllOf(userId: string): Promise<number> {
    return this.tokens.deleteAllOf(userId, 'revoked');
  }

  /** Signs out every session of the user but `keepTokenId` (a password change), inside the caller's transaction. */
  async revokeAllBut(trx: Executor, userId: string, keepTokenId: string): Promise<void> {
    await this.tokens.with(trx).deleteAllBut(userId, keepTokenId, 'password_changed');
  }

  /** Signs out every session of the user, inside the caller's transaction, for `reason`. */
  async revokeAll(trx: Executor, userId: string, reason: SessionRevokedReason): Promise<void> {
    await this.tokens.with(trx).deleteAllOf(userId, reason);
  }
}
