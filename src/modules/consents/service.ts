import type { Listen } from '../../db/notifications.js';
import type { ConsentText, UserRow } from '../../db/schema.js';
import { type Executor, writeTransaction } from '../../db/transaction.js';
import { type FieldFailures, NotFoundError, ValidationError } from '../../errors.js';
import type { AuthContext } from '../../http/auth-context.js';
import { iso } from '../../lib/time.js';
import type { Coerce } from '../../validation/field.js';
import { boolean } from '../../validation/field-kinds.js';
import type { Locale } from '../../validation/messages.js';
import { CLEARED } from '../../validation/types.js';
import { writeAccountEvent } from '../account-events/outbox.js';
import { type PendingConsent, PendingConsents } from './pending.js';
import type { ConsentsRepo, CurrentDocument, NewConsentRecord, SignUpConsents } from './repo.js';
import {
  bodyLanguage,
  type ConsentDocumentView,
  type LegalPage,
  legalPagePath,
  textIn,
  type UserConsents,
} from './view.js';

/** The prefix of register's optional consent fields: `consent_marketing_email=on`. */
export const SIGN_UP_CONSENT_PREFIX = 'consent_';

/** What the user's consent change is made through: the app (`update`) or the web pages (`web`). */
export type UserChannel = 'update' | 'web';

/** A document's key: lower-case letters, digits and underscores. */
export const DOCUMENT_KEY = /^[a-z0-9_]{1,64}$/;

/** Who changed consents: the address and user agent of the request, as the security log keeps them. */
export interface ConsentClient {
  ip: string;
  userAgent: string | undefined;
}

/** One consent change as the security log records it: the keys turned on or off, and through which channel. */
export type ConsentChange = Record<string, string | boolean>;

/** Where a consent change is logged (the security activity log), in the change's transaction. */
export interface ConsentLog {
  consentChanged(trx: Executor, user: UserRow, client: ConsentClient, change: ConsentChange): Promise<void>;
}

/** A new version of a document, as an operator publishes it. */
export interface PublishInput {
  key: string;
  version: number;
  required: boolean;
  /** Title and URL per language (at least one). */
  texts: Record<string, ConsentText>;
  /** The text per language, for the service's own pages (`/legal/<key>/<version>/<lang>`); each needs a title. */
  bodies?: Record<string, string>;
}

/** Where `/legal/<key>` sends a reader: the current version's page, its own or the operator's. */
export interface LegalRedirect {
  url: string;
}

export type { PendingConsent } from './pending.js';

/** Reads `on|yes|1|true` and `off|no|0|false` (and booleans) the way the boolean rule does. */
const asBoolean = boolean().spec.coerce as Coerce<boolean>;

/** Absent, or sent empty (which counts as absent, as for every parameter). */
const isAbsent = (value: unknown) => value === undefined || value === CLEARED;

/**
 * The consent documents (published by operators) and what each user agreed to. Records are appended,
 * never changed: an agreement and a withdrawal are each a row, so the history is the record.
 */
export class ConsentsService {
  readonly #pending: PendingConsents;

  constructor(
    private readonly db: Executor,
    private readonly consents: ConsentsRepo,
    private readonly log?: ConsentLog,
    /** Where the database announces a publish (every instance's `pendingFor` keeps the versions in memory). */
    listen?: Listen,
  ) {
    this.#pending = new PendingConsents(consents, listen);
  }

  /** Every document at its current version, in `locale` (else English, else any language published). */
  async documents(locale: Locale): Promise<ConsentDocumentView[]> {
    return (await this.consents.currentDocuments()).map((document) => documentView(document, locale));
  }

  /** Every document with all its languages (the operator's list). */
  allDocuments(): Promise<CurrentDocument[]> {
    return this.consents.currentDocuments();
  }

  /** Makes a new version a document's current one (creating the document); versions only go up. */
  async publish(input: PublishInput): Promise<void> {
    const failures: FieldFailures = {};
    if (!DOCUMENT_KEY.test(input.key)) failures.key = [{ rule: 'regex' }];
    if (!Number.isSafeInteger(input.version) || input.version < 1)
      failures.version = [{ rule: 'min.numeric', params: { min: 1 } }];
    const bodies = input.bodies ?? {};
    // A page shows a title above its text: a text in a language without a title would have none.
    if (Object.keys(bodies).some((lang) => !(lang in input.texts) || bodies[lang] === ''))
      failures.bodies = [{ rule: 'in' }];
    if (Object.keys(failures).length > 0) throw new ValidationError(failures);
    await writeTransaction(this.db, async (trx) => {
      const repo = this.consents.with(trx);
      if (await repo.publish({ ...input, bodies })) return;
      const current = (await repo.currentVersion(input.key)) ?? 0;
      throw new ValidationError({ version: [{ rule: 'min.numeric', params: { min: current + 1 } }] });
    });
  }

  /**
   * The optional documents a sign-up ticked, from its `consent_<key>` fields: a true value agrees, a false
   * one leaves the item unticked (refusing never blocks a sign-up). A key that names no optional document
   * (none at all, or a required one, which `user_agreement` covers) is a 422 on its field. No query when
   * there are no such fields: an old client's sign-up costs nothing more.
   */
  async signUpChoices(fields: Readonly<Record<string, unknown>>): Promise<string[]> {
    const names = Object.keys(fields).filter(
      (name) => name.startsWith(SIGN_UP_CONSENT_PREFIX) && !isAbsent(fields[name]),
    );
    if (names.length === 0) return [];
    const optional = new Set(
      (await this.consents.currentDocuments()).filter((doc) => !doc.required).map((doc) => doc.key),
    );
    const failures: FieldFailures = {};
    const chosen: string[] = [];
    for (const name of names) {
      const key = name.slice(SIGN_UP_CONSENT_PREFIX.length);
      const value = asBoolean(fields[name]);
      if (!optional.has(key)) failures[name] = [{ rule: 'in' }];
      else if (!value.ok) failures[name] = [value.failure];
      else if (value.value === true) chosen.push(key);
    }
    if (Object.keys(failures).length > 0) throw new ValidationError(failures);
    return chosen;
  }

  /** A sign-up's records: every required document's current version, and the optional keys chosen. */
  signUpConsents(userId: string, optionalKeys: string[], clientAddress: string): SignUpConsents {
    return { userId, optionalKeys, clientAddress };
  }

  /** Writes a sign-up's records inside its transaction (a provider sign-up; an email one writes them itself). */
  async recordSignUpWithin(trx: Executor, consents: SignUpConsents): Promise<void> {
    await this.consents.with(trx).insertSignUpConsents(consents);
  }

  /** The user's latest state of every document. */
  async consentsOf(userId: string): Promise<UserConsents> {
    const [documents, latest] = await Promise.all([
      this.consents.currentDocuments(),
      this.consents.latestOf(userId),
    ]);
    const byKey = new Map(latest.map((record) => [record.key, record]));
    return {
      consents: documents.map((document) => {
        const record = byKey.get(document.key);
        return {
          key: document.key,
          version: record?.version ?? null,
          agreed: record?.agreed ?? false,
          agreed_at: record?.agreed ? iso(record.recorded_at) : null,
          withdrawn_at: record && !record.agreed ? iso(record.recorded_at) : null,
          required: document.required,
          current_version: document.version,
        };
      }),
    };
  }

  /**
   * The signed-in user agrees (`<key>=on`) or withdraws (`<key>=off`), document by document, in one
   * transaction. Only known document keys are read from `fields` (any other parameter is no document). An
   * agreement is always recorded (agreeing again re-confirms, and is how a new version is agreed to); a
   * withdrawal only when an agreement is in force. A required document cannot be withdrawn: that is
   * deleting the account. Returns the user's state after the change.
   */
  async update(
    auth: AuthContext,
    fields: Readonly<Record<string, unknown>>,
    channel: UserChannel,
    client: ConsentClient,
  ): Promise<UserConsents> {
    const userId = auth.user.id;
    const documents = await this.consents.currentDocuments();
    const failures: FieldFailures = {};
    const changes: { document: CurrentDocument; agreed: boolean }[] = [];
    for (const document of documents) {
      if (isAbsent(fields[document.key])) continue;
      const value = asBoolean(fields[document.key]);
      if (!value.ok) failures[document.key] = [value.failure];
      else if (document.required && !value.value) failures[document.key] = [{ rule: 'consent_required' }];
      else changes.push({ document, agreed: value.value });
    }
    if (Object.keys(failures).length > 0) throw new ValidationError(failures);
    if (changes.length > 0) {
      await writeTransaction(this.db, async (trx) => {
        // One change of a user's consents at a time (the reminder command's expiry takes the same lock), so
        // "is an agreement in force?" is still true when the row is appended.
        const repo = this.consents.with(trx);
        await repo.lockUsers([userId]);
        const inForce = new Set((await repo.latestOf(userId)).filter((r) => r.agreed).map((r) => r.key));
        const records: NewConsentRecord[] = changes
          .filter(({ document, agreed }) => agreed || inForce.has(document.key))
          .map(({ document, agreed }) => ({
            userId,
            key: document.key,
            version: document.version,
            agreed,
            channel,
            clientAddress: client.ip,
          }));
        await repo.insert(records);
        for (const { key, version, agreed } of records) {
          await writeAccountEvent(trx, 'consent.changed', userId, { user_id: userId, key, version, agreed });
        }
        // Withdrawing what was never agreed to records nothing, and logs nothing.
        if (records.length === 0) return;
        const change: ConsentChange = { channel };
        for (const record of records) change[record.key] = record.agreed;
        await this.log?.consentChanged(trx, auth.user, client, change);
      });
    }
    return this.consentsOf(userId);
  }

  /**
   * One version's page in `lang` (else English, else the language it has a text in). Not found: an unknown
   * document or version, or a version without any text (its pages are elsewhere).
   */
  async page(key: string, version: number, lang: Locale): Promise<LegalPage> {
    const found = DOCUMENT_KEY.test(key) ? await this.consents.documentVersion(key, version) : undefined;
    const shown = found && bodyLanguage(found.bodies, lang);
    if (!found || !shown) throw new NotFoundError();
    return {
      key,
      version,
      lang: shown,
      title: (found.texts[shown] ?? textIn(found.texts, lang)).title,
      body: found.bodies[shown] ?? '',
      currentVersion: found.currentVersion,
    };
  }

  /**
   * Where `/legal/<key>` leads: the current version's own page in `locale` (or the language it has), else
   * the page its operator published elsewhere. Not found: an unknown document.
   */
  async currentPage(key: string, locale: Locale): Promise<LegalRedirect> {
    const found = DOCUMENT_KEY.test(key) ? await this.consents.documentVersion(key, 'current') : undefined;
    if (!found) throw new NotFoundError();
    const shown = bodyLanguage(found.bodies, locale);
    if (shown) return { url: legalPagePath(key, found.version, shown) };
    const { url } = textIn(found.texts, locale);
    // A version published with a page of `/legal/<key>` itself and no text would send the reader in circles.
    if (url === `/legal/${key}`) throw new NotFoundError();
    return { url };
  }

  /** Required documents whose current version the user has not agreed to, in `locale` (pending.ts). */
  pendingFor(auth: AuthContext, locale: Locale): Promise<PendingConsent[]> {
    return this.#pending.of(auth.user.agreed_consents, locale);
  }
}

function documentView(document: CurrentDocument, locale: Locale): ConsentDocumentView {
  const { title, url } = textIn(document.texts, locale);
  return { key: document.key, version: document.version, title, url, required: document.required };
}
