import { sql } from 'kysely';

/** A required document's current version that the user has not agreed to: its key and that version. */
export interface PendingDocument {
  key: string;
  version: number;
}

/**
 * The required documents whose current version the user has not agreed to, `[[key, version], …]` in key
 * order, as a column of any query that has `users` in scope: the documents (a handful of rows) each probing
 * the user's records on (user_id, key, id DESC). Here, beside the schema, because the token lookup of every
 * authenticated request reads it (the consents module turns it into titles and links from memory).
 */
export const pendingConsentVersions = sql<Array<[string, number]>>`(
  SELECT coalesce(json_agg(json_build_array(d.key, d.current_version) ORDER BY d.key), '[]'::json)
  FROM consent_documents d
  WHERE d.required AND NOT EXISTS (
    SELECT 1 FROM consent_records r
    WHERE r.user_id = users.id AND r.key = d.key AND r.version = d.current_version AND r.agreed))`;

/** The column's value as PendingDocuments. */
export function pendingDocuments(column: Array<[string, number]> | null): PendingDocument[] {
  return (column ?? []).map(([key, version]) => ({ key, version }));
}
