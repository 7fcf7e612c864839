import { sql } from 'kysely';
import { Precompiled } from '../../db/precompiled.js';
import type { ConsentChannel, ConsentText } from '../../db/schema.js';
import type { Executor, TableInserter } from '../../db/transaction.js';

/** A document at its current version, with its title and URL per language. */
export interface CurrentDocument {
  key: string;
  version: number;
  required: boolean;
  texts: Record<string, ConsentText>;
}

/** A document as `accounts consent publish` writes a new version of it. */
export interface PublishedVersion {
  key: string;
  version: number;
  required: boolean;
  texts: Record<string, ConsentText>;
  /** The text per language, when the service serves the version's pages (may be empty). */
  bodies: Record<string, string>;
}

/** One version of a document with its text per language: what its page shows. */
export interface DocumentVersion {
  key: string;
  version: number;
  currentVersion: number;
  texts: Record<string, ConsentText>;
  bodies: Record<string, string>;
}

/** One agreement or withdrawal to append. */
export interface NewConsentRecord {
  userId: string;
  key: string;
  version: number;
  agreed: boolean;
  channel: ConsentChannel;
  clientAddress: string | null;
}

/** The latest record of one document for one user. */
export interface LatestRecord {
  key: string;
  version: number;
  agreed: boolean;
  recorded_at: Date;
}

/** What a sign-up agrees to: every required document's current version, and the optional ones chosen. */
export interface SignUpConsents {
  userId: string;
  /** Keys of optional documents the user ticked (checked against the documents before the write). */
  optionalKeys: string[];
  clientAddress: string;
}

/**
 * The INSERT of a sign-up's consent records, one per required document (its current version) and one per
 * chosen optional document: a statement of its own in a provider sign-up's transaction, and a CTE of an
 * email sign-up's one statement (src/account/sign-up/write.ts), so an old client that sends only
 * `user_agreement` costs no round trip more.
 */
export function insertSignUpConsentsQuery(db: TableInserter, consents: SignUpConsents) {
  return db
    .insertInto('consent_records')
    .columns(['user_id', 'key', 'version', 'agreed', 'channel', 'client_address'])
    .expression((eb) =>
      eb
        .selectFrom('consent_documents')
        .select([
          sql<string>`${consents.userId}::uuid`.as('user_id'),
          'key',
          'current_version',
          sql<boolean>`true`.as('agreed'),
          sql<ConsentChannel>`'register'`.as('channel'),
          sql<string>`${consents.clientAddress}::text`.as('client_address'),
        ])
        .where(sql<boolean>`required OR key = ANY(${consents.optionalKeys}::text[])`)
        .orderBy('key'),
    );
}

/**
 * A sign-up's consents as `user.created` carries them (`[{"key","version","agreed":true}]`, by key), chosen
 * by the same condition from the same documents as its records (insertSignUpConsentsQuery): a subquery of the
 * statement or transaction that writes them, so it sees the documents they do.
 */
export function signUpConsentsJson(consents: SignUpConsents) {
  return sql<unknown>`(SELECT coalesce(jsonb_agg(jsonb_build_object('key', key, 'version', current_version,
    'agreed', true) ORDER BY key), '[]'::jsonb)
    FROM consent_documents WHERE required OR key = ANY(${consents.optionalKeys}::text[]))`;
}

/** A provider sign-up's consent records, in one statement. */
const INSERT_SIGN_UP_CONSENTS = Precompiled.named((db: Executor, consents: SignUpConsents) =>
  insertSignUpConsentsQuery(db, consents),
);

/** The first key of the per-user consent advisory locks: apart from every other advisory lock. */
const CONSENT_LOCK_CLASS = 727_015;

export class ConsentsRepo {
  constructor(private readonly db: Executor) {}

  with(trx: Executor): ConsentsRepo {
    return new ConsentsRepo(trx);
  }

  /**
   * Takes the per-user consent locks of `userIds` until the transaction ends, in one order (two takers never
   * deadlock): a change of a user's consents and the reminder command's expiry run one after the other.
   */
  async lockUsers(userIds: readonly string[]): Promise<void> {
    for (const userId of [...new Set(userIds)].sort()) {
      await sql`SELECT pg_advisory_xact_lock(${CONSENT_LOCK_CLASS}, hashtext(${userId}))`.execute(this.db);
    }
  }

  /** Every document at its current version, required ones first (a handful of rows, on the primary keys). */
  async currentDocuments(): Promise<CurrentDocument[]> {
    return this.db
      .selectFrom('consent_documents as d')
      .innerJoin('consent_document_versions as v', (join) =>
        join.onRef('v.key', '=', 'd.key').onRef('v.version', '=', 'd.current_version'),
      )
      .select(['d.key', 'd.current_version as version', 'd.required', 'v.texts'])
      .orderBy('d.required', 'desc')
      .orderBy('d.key')
      .execute();
  }

  /**
   * Makes `published` the document's current version, creating the document the first time. Versions only
   * go up: returns false (and writes nothing) when the current version is not lower. The conflict locks the
   * document's row, so two publishes of one document run one after the other.
   */
  async publish(published: PublishedVersion): Promise<boolean> {
    const document = await this.db
      .insertInto('consent_documents')
      .values({ key: published.key, current_version: published.version, required: published.required })
      .onConflict((oc) =>
        oc
          .column('key')
          .doUpdateSet({
            current_version: (eb) => eb.ref('excluded.current_version'),
            required: (eb) => eb.ref('excluded.required'),
            updated_at: sql<Date>`now()`,
          })
          .where('consent_documents.current_version', '<', published.version),
      )
      .returning('key')
      .executeTakeFirst();
    if (!document) return false;
    await this.db
      .insertInto('consent_document_versions')
      .values({
        key: published.key,
        version: published.version,
        texts: JSON.stringify(published.texts),
        bodies: JSON.stringify(published.bodies),
      })
      .execute();
    return true;
  }

  /**
   * One version of a document (`current`: its current one) with its texts and bodies, or undefined. The
   * bodies are read only here: the lists of documents never carry them.
   */
  async documentVersion(key: string, version: number | 'current'): Promise<DocumentVersion | undefined> {
    const row = await this.db
      .selectFrom('consent_documents as d')
      .innerJoin('consent_document_versions as v', 'v.key', 'd.key')
      .select(['v.key', 'v.version', 'd.current_version', 'v.texts', 'v.bodies'])
      .where('d.key', '=', key)
      .where('v.version', '=', version === 'current' ? sql.ref<number>('d.current_version') : version)
      .executeTakeFirst();
    if (!row) return undefined;
    return {
      key: row.key,
      version: row.version,
      currentVersion: row.current_version,
      texts: row.texts,
      bodies: row.bodies,
    };
  }

  /** The current version of one document (for `publish`'s refusal). */
  async currentVersion(key: string): Promise<number | undefined> {
    const row = await this.db
      .selectFrom('consent_documents')
      .select('current_version')
      .where('key', '=', key)
      .executeTakeFirst();
    return row?.current_version;
  }

  /** A sign-up's records (see insertSignUpConsentsQuery), inside its transaction. */
  async insertSignUpConsents(consents: SignUpConsents): Promise<void> {
    await INSERT_SIGN_UP_CONSENTS.execute(this.db, consents);
  }

  /** Appends records, in one statement. */
  async insert(records: readonly NewConsentRecord[]): Promise<void> {
    if (records.length === 0) return;
    await this.db
      .insertInto('consent_records')
      .values(
        records.map((record) => ({
          user_id: record.userId,
          key: record.key,
          version: record.version,
          agreed: record.agreed,
          channel: record.channel,
          client_address: record.clientAddress,
        })),
      )
      .execute();
  }

  /** The user's latest record of each document (the first row per key on (user_id, key, id DESC)). */
  latestOf(userId: string): Promise<LatestRecord[]> {
    return this.db
      .selectFrom('consent_records')
      .distinctOn('key')
      .select(['key', 'version', 'agreed', 'recorded_at'])
      .where('user_id', '=', userId)
      .orderBy('key')
      .orderBy('id', 'desc')
      .execute();
  }
}
