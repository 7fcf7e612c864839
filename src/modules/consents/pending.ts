import type { PendingDocument } from '../../db/pending-consents.js';
import type { ConsentText } from '../../db/schema.js';
import type { AuthContext } from '../../http/auth-context.js';
import type { Locale } from '../../validation/messages.js';
import type { ConsentsRepo } from './repo.js';
import { textIn } from './view.js';

/** A required document the user has not agreed to in its current version (user/get). */
export interface PendingConsent {
  key: string;
  version: number;
  title: string;
  url: string;
}

/** The most document versions kept in memory (their titles and links per language). */
const MAX_VERSIONS_IN_MEMORY = 1000;

function versionKey(document: PendingDocument): string {
  return `${document.key}\n${document.version}`;
}

function pendingView(
  document: PendingDocument & { texts: Record<string, ConsentText> },
  locale: Locale,
): PendingConsent {
  const { title, url } = textIn(document.texts, locale);
  return { key: document.key, version: document.version, title, url };
}

/**
 * The required documents a user has yet to agree to, as user/get shows them. The versions come with the
 * token's owner (AuthContext.pendingConsents, read in the token's one statement); their titles and links
 * from memory. A version is never changed once published, so what is in memory is never stale: a version
 * this instance has not met yet (published since, on whichever instance) costs one query, once. No instance
 * keeps the current versions, so none needs telling when one is published.
 */
export class PendingConsents {
  /** The titles and links of the document versions met so far, by key and version. */
  readonly #texts = new Map<string, Record<string, ConsentText>>();

  constructor(private readonly consents: ConsentsRepo) {}

  /** In `locale`. Without the versions (an AuthContext the token lookup did not make), one query. */
  async of(auth: AuthContext, locale: Locale): Promise<PendingConsent[]> {
    const pending = auth.pendingConsents;
    if (pending === undefined) {
      return (await this.consents.pendingRequired(auth.user.id)).map((document) =>
        pendingView(document, locale),
      );
    }
    if (pending.length === 0) return [];
    const unseen = pending.filter((document) => !this.#texts.has(versionKey(document)));
    if (unseen.length > 0) {
      // A handful of rows per published version: bounded by what operators publish, dropped if it ever grows.
      if (this.#texts.size > MAX_VERSIONS_IN_MEMORY) this.#texts.clear();
      for (const found of await this.consents.versionTexts(unseen)) {
        this.#texts.set(versionKey(found), found.texts);
      }
    }
    return pending.map((document) => {
      const texts = this.#texts.get(versionKey(document));
      // Versions are never deleted, so one the statement named is found; a broken row, not the request's fault.
      if (!texts) throw new Error(`consent document ${document.key} version ${document.version} not found`);
      return pendingView({ ...document, texts }, locale);
    });
  }
}
