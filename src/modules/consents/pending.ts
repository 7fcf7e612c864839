import type { Listen, Listening } from '../../db/notifications.js';
import type { AgreedConsents } from '../../db/schema.js';
import type { Locale } from '../../validation/messages.js';
import type { ConsentsRepo, CurrentDocument } from './repo.js';
import { textIn } from './view.js';

/** A required document the user has not agreed to in its current version (user/get). */
export interface PendingConsent {
  key: string;
  version: number;
  title: string;
  url: string;
}

/** The channel the database announces a change of the documents on (migration 0033's trigger). */
const DOCUMENTS_CHANNEL = 'consent_documents';
/**
 * The longest the documents are trusted without a change heard: a LISTEN through a pooler in transaction
 * mode succeeds and then hears nothing, so a publish reaches such an instance within this long all the same.
 */
const MAX_AGE_MS = 60_000;

interface Load {
  /** The count of changes heard when the load started: it is current while no change has been heard since. */
  heard: number;
  documents: Promise<CurrentDocument[]>;
}

/**
 * The required documents a user has yet to agree to, as user/get shows them, without a query: the versions
 * the account agreed to come with its row (users.agreed_consents, read in the token's one statement), the
 * current versions of the required documents and their titles from memory. The database announces every
 * change of the documents (NOTIFY, by whichever process publishes), so every instance reads them again
 * after a publish; until it listens, and while its listening connection is down, it reads them on every
 * call instead of trusting what it holds, and never trusts them for longer than a minute.
 */
export class PendingConsents {
  #listening: Listening | undefined;
  /** Changes of the documents heard so far. */
  #heard = 0;
  #current: { heard: number; readAt: number; documents: CurrentDocument[] } | undefined;
  #load: Load | undefined;

  constructor(
    private readonly consents: ConsentsRepo,
    private readonly listen?: Listen,
  ) {}

  /** For an account that agreed to `agreed`, in `locale`. */
  async of(agreed: AgreedConsents, locale: Locale): Promise<PendingConsent[]> {
    const required = this.#fresh() ?? (await this.#reload());
    const pending: PendingConsent[] = [];
    for (const document of required) {
      if (agreed[document.key]?.includes(document.version)) continue;
      const { title, url } = textIn(document.texts, locale);
      pending.push({ key: document.key, version: document.version, title, url });
    }
    return pending;
  }

  /** What is in memory, if no change has been heard since it was read and none can have been missed. */
  #fresh(): CurrentDocument[] | undefined {
    this.#listening ??= this.listen?.(DOCUMENTS_CHANNEL, () => {
      this.#heard++;
    });
    const current = this.#current;
    if (!current || current.heard !== this.#heard || !this.#listening?.live) return undefined;
    if (Date.now() - current.readAt > MAX_AGE_MS) return undefined;
    return current.documents;
  }

  /** One read of the documents for every caller that needs them now; a new one once a change is heard. */
  #reload(): Promise<CurrentDocument[]> {
    const heard = this.#heard;
    const load = this.#load;
    if (load && load.heard === heard) return load.documents;
    const readAt = Date.now();
    const documents = this.consents.currentDocuments().then((all) => {
      const required = all.filter((document) => document.required);
      // A read that started before a later one does not replace it.
      if (!this.#current || this.#current.heard <= heard)
        this.#current = { heard, readAt, documents: required };
      return required;
    });
    const started: Load = { heard, documents };
    this.#load = started;
    const forget = () => {
      if (this.#load === started) this.#load = undefined;
    };
    documents.then(forget, forget);
    return documents;
  }
}
