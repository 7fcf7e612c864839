import { sql } from 'kysely';
import type { ConsentText } from '../../db/schema.js';
import type { Executor } from '../../db/transaction.js';

/** One published version of a document, without its bodies: which languages have one. */
export interface VersionSummary {
  version: number;
  published_at: Date;
  texts: Record<string, ConsentText>;
  body_languages: string[];
}

/** The versions of a document as staff list them (the console); the bodies stay in documentVersion. */
export class ConsentVersionsRepo {
  constructor(private readonly db: Executor) {}

  /** Every version of one document, newest first (a handful of rows, on the primary key). */
  versions(key: string): Promise<VersionSummary[]> {
    return this.db
      .selectFrom('consent_document_versions')
      .select([
        'version',
        'published_at',
        'texts',
        sql<string[]>`ARRAY(SELECT jsonb_object_keys(bodies) ORDER BY 1)`.as('body_languages'),
      ])
      .where('key', '=', key)
      .orderBy('version', 'desc')
      .execute();
  }
}
