import { sql } from 'kysely';
import type { GuardianConsentState, UserRow } from '../../db/schema.js';
import type { AgreedDocument, GuardianConsentMethod, GuardianLinkPurpose } from '../../db/schema-guardian.js';
import type { Executor } from '../../db/transaction.js';

/** A link to mail to a guardian. */
export interface NewGuardianLink {
  id: string;
  userId: string;
  purpose: GuardianLinkPurpose;
  guardianEmail: string;
  tokenHash: Buffer;
  expiresAt: Date;
}

const CHILD_COLUMNS = [
  ...['id', 'email', 'username', 'email_verified', 'birth_date'],
  ...['guardian_consent', 'created_at', 'guardian_pending_since'],
] as const;

/** The child a link is about, as the flow needs it (its security log, its mails, its deadline). */
export type GuardianChild = Pick<UserRow, (typeof CHILD_COLUMNS)[number]>;

/** When the child's wait for a guardian began: the sign-up, unless a verified identity began it later. */
export function waitingSince(child: Pick<UserRow, 'created_at' | 'guardian_pending_since'>): Date {
  return child.guardian_pending_since ?? child.created_at;
}

/** The same in SQL, as the partial index of waiting children has it (0036). */
const WAITING_SINCE = sql<Date>`coalesce(guardian_pending_since, created_at)`;

/** A usable link (not used, not replaced, not expired) with the child it is about. */
export interface LiveGuardianLink {
  id: string;
  purpose: GuardianLinkPurpose;
  guardianEmail: string;
  expiresAt: Date;
  child: GuardianChild;
}

export interface NewGuardianConsent {
  id: string;
  userId: string;
  method: GuardianConsentMethod;
  guardianCiHash: Buffer | null;
  agreed: boolean;
  documents: AgreedDocument[];
}

/** A guardian's answer as the data export lists it (never the CI hash). */
export interface GuardianConsentRecord {
  method: GuardianConsentMethod;
  agreed: boolean;
  documents: AgreedDocument[];
  answered_at: Date;
  withdrawn_at: Date | null;
}

/**
 * The SQL of a guardian's consent: the mailed links, the answers, and the users row's `guardian_consent`
 * state, which only this flow changes after sign-up.
 */
export class GuardianRepo {
  constructor(private readonly db: Executor) {}

  with(trx: Executor): GuardianRepo {
    return new GuardianRepo(trx);
  }

  /** Locks the child's row for the caller's transaction (the eraser takes the same lock first); its state. */
  async lockChild(userId: string): Promise<GuardianChild | undefined> {
    return this.db
      .selectFrom('users')
      .select(CHILD_COLUMNS)
      .where('id', '=', userId)
      .where('deletion_scheduled_at', 'is', null)
      .forUpdate()
      .executeTakeFirst();
  }

  /** The child's requests (links of purpose `consent`) made since `since`, oldest first: their times. */
  async requestTimesSince(userId: string, since: Date): Promise<Date[]> {
    const rows = await this.db
      .selectFrom('guardian_requests')
      .select('created_at')
      .where('user_id', '=', userId)
      .where('purpose', '=', 'consent')
      .where('created_at', '>=', since)
      .orderBy('created_at')
      .execute();
    return rows.map((row) => row.created_at);
  }

  /** Marks the child's unused links of `purpose` used: a new one replaces them. */
  async retire(userId: string, purpose: GuardianLinkPurpose): Promise<void> {
    await this.db
      .updateTable('guardian_requests')
      .set({ used_at: sql<Date>`now()` })
      .where('user_id', '=', userId)
      .where('purpose', '=', purpose)
      .where('used_at', 'is', null)
      .execute();
  }

  async insertLink(link: NewGuardianLink): Promise<void> {
    await this.db
      .insertInto('guardian_requests')
      .values({
        id: link.id,
        user_id: link.userId,
        purpose: link.purpose,
        guardian_email: link.guardianEmail,
        token_hash: link.tokenHash,
        expires_at: link.expiresAt,
      })
      .execute();
  }

  /** The usable link with this digest; `lock` locks the link's row for the caller's transaction. */
  async liveLink(tokenHash: Buffer, lock = false): Promise<LiveGuardianLink | undefined> {
    let query = this.db
      .selectFrom('guardian_requests')
      .innerJoin('users', 'users.id', 'guardian_requests.user_id')
      .select([
        'guardian_requests.id',
        'guardian_requests.purpose',
        'guardian_requests.guardian_email',
        'guardian_requests.expires_at',
        'users.id as user_id',
        'users.email',
        'users.username',
        'users.email_verified',
        'users.birth_date',
        'users.guardian_consent',
        'users.created_at',
        'users.guardian_pending_since',
      ])
      .where('guardian_requests.token_hash', '=', tokenHash)
      .where('guardian_requests.used_at', 'is', null)
      .where('guardian_requests.expires_at', '>', sql<Date>`now()`)
      // An account on its way out has nothing left to consent to.
      .where('users.deletion_scheduled_at', 'is', null);
    if (lock) query = query.forUpdate();
    const row = await query.executeTakeFirst();
    if (!row) return undefined;
    return {
      id: row.id,
      purpose: row.purpose,
      guardianEmail: row.guardian_email,
      expiresAt: row.expires_at,
      child: {
        id: row.user_id,
        email: row.email,
        username: row.username,
        email_verified: row.email_verified,
        birth_date: row.birth_date,
        guardian_consent: row.guardian_consent,
        created_at: row.created_at,
        guardian_pending_since: row.guardian_pending_since,
      },
    };
  }

  /** Uses a link up; false when another request used it first. */
  async useLink(id: string): Promise<boolean> {
    const result = await this.db
      .updateTable('guardian_requests')
      .set({ used_at: sql<Date>`now()` })
      .where('id', '=', id)
      .where('used_at', 'is', null)
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }

  /** Forgets every guardian address the child's requests hold except the one of `keepId`. */
  async deleteLinksExcept(userId: string, keepId: string): Promise<void> {
    await this.db
      .deleteFrom('guardian_requests')
      .where('user_id', '=', userId)
      .where('id', '!=', keepId)
      .execute();
  }

  async insertConsent(consent: NewGuardianConsent): Promise<void> {
    await this.db
      .insertInto('guardian_consents')
      .values({
        id: consent.id,
        user_id: consent.userId,
        method: consent.method,
        guardian_ci_hash: consent.guardianCiHash,
        agreed: consent.agreed,
        documents: JSON.stringify(consent.documents),
      })
      .execute();
  }

  /** Moves the child's state from `from` to `to`; false when it was not `from` (another answer came first). */
  async moveState(userId: string, from: GuardianConsentState, to: GuardianConsentState): Promise<boolean> {
    const result = await this.db
      .updateTable('users')
      .set({ guardian_consent: to })
      .where('id', '=', userId)
      .where('guardian_consent', '=', from)
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }

  async markWithdrawn(userId: string): Promise<void> {
    await this.db
      .updateTable('guardian_consents')
      .set({ withdrawn_at: sql<Date>`now()` })
      .where('user_id', '=', userId)
      .where('agreed', '=', true)
      .where('withdrawn_at', 'is', null)
      .execute();
  }

  /** The consent in force (agreed, not withdrawn): how the guardian was confirmed, and their CI hash if so. */
  async consentInForce(
    userId: string,
  ): Promise<{ method: GuardianConsentMethod; guardianCiHash: Buffer | null } | undefined> {
    const row = await this.db
      .selectFrom('guardian_consents')
      .select(['method', 'guardian_ci_hash'])
      .where('user_id', '=', userId)
      .where('agreed', '=', true)
      .where('withdrawn_at', 'is', null)
      .orderBy('answered_at', 'desc')
      .executeTakeFirst();
    if (!row) return undefined;
    const hash = row.guardian_ci_hash;
    return { method: row.method, guardianCiHash: hash === null ? null : Buffer.from(hash) };
  }

  /** The child's guardian answers, oldest first, without the guardian's CI hash. */
  consentsOf(userId: string): Promise<GuardianConsentRecord[]> {
    return this.db
      .selectFrom('guardian_consents')
      .select(['method', 'agreed', 'documents', 'answered_at', 'withdrawn_at'])
      .where('user_id', '=', userId)
      .orderBy('answered_at')
      .execute();
  }

  /** Every guardian address the child's links went to (the erasure forgets the mails sent there). */
  async guardianAddresses(userId: string): Promise<string[]> {
    const rows = await this.db
      .selectFrom('guardian_requests')
      .select('guardian_email')
      .distinct()
      .where('user_id', '=', userId)
      .execute();
    return rows.map((row) => row.guardian_email);
  }

  /**
   * Children still waiting for a guardian past the deadline (`days` after the wait began), longest waiting
   * first, on the partial index of pending accounts. One whose deletion is scheduled (a withdrawn consent) is
   * left to the deletion's own sweep.
   */
  async pastDeadline(days: number, limit: number): Promise<Pick<UserRow, 'id' | 'username'>[]> {
    return this.db
      .selectFrom('users')
      .select(['id', 'username'])
      .where('guardian_consent', '=', 'pending')
      .where(WAITING_SINCE, '<', sql<Date>`now() - make_interval(days => ${days}::int)`)
      .where('deletion_scheduled_at', 'is', null)
      .orderBy(WAITING_SINCE)
      .limit(limit)
      .execute();
  }
}
