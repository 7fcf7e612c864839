import { createHash } from 'node:crypto';

/**
 * The hash chain of the access records: each record's hash is the SHA-256 of a canonical serialisation of
 * its fields and of the hash of the record before it. Changing any field of a stored record, or removing
 * one, breaks the chain at that record (`accounts audit verify`). The serialisation is versioned (`v1`):
 * a change of it is a new version, never an edit, or every stored record would stop verifying.
 */

/** The hash the first record ever chains to. */
export const GENESIS_HASH = '0'.repeat(64);

/** What of a record the hash covers: every column but the hash itself. */
export interface ChainedFields {
  seq: string;
  at: Date;
  actorKind: 'staff' | 'cli';
  actor: string;
  clientAddress: string | null;
  subjectId: string | null;
  action: string;
  reason: string | null;
  outcome: 'ok' | 'refused' | 'failed';
  detail: unknown;
  prevHash: string;
}

/**
 * JSON with object keys sorted at every depth and no spaces: the same value always gives the same text,
 * whatever order its keys were written in or jsonb stored them in (jsonb reorders keys).
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') {
    const text = JSON.stringify(value);
    // undefined, a function or a symbol has no JSON: refused rather than silently dropped.
    if (text === undefined) throw new TypeError(`not JSON: ${typeof value}`);
    return text;
  }
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, item]) => item !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonicalJson(item)}`).join(',')}}`;
}

/**
 * The bytes a record's hash is taken over: one JSON array of its fields in a fixed order. An array of
 * JSON strings has one reading only (its quoting escapes every separator), so two different records never
 * serialise alike. The time is ISO 8601 in UTC to the millisecond, as it is stored.
 */
export function canonicalRecord(fields: ChainedFields): string {
  return JSON.stringify([
    'v1',
    fields.seq,
    fields.at.toISOString(),
    fields.actorKind,
    fields.actor,
    fields.clientAddress,
    fields.subjectId,
    fields.action,
    fields.reason,
    fields.outcome,
    canonicalJson(fields.detail),
    fields.prevHash,
  ]);
}

/** The record's hash, lower-case hex. */
export function recordHash(fields: ChainedFields): string {
  return createHash('sha256').update(canonicalRecord(fields), 'utf8').digest('hex');
}

/** Why a record does not verify. */
export type ChainBreak =
  /** Records are missing before this one (deleted): its number is not the one after the last. */
  | 'missing_before'
  /** It does not chain to the record before it (that one, or the anchor, was replaced). */
  | 'prev_hash_mismatch'
  /** Its fields do not give its hash (a column was changed). */
  | 'hash_mismatch'
  /** Records are missing after the last one found (the head names a later one). */
  | 'missing_after'
  /** It comes after the last record the head names: written by hand, not appended. */
  | 'after_head';

/** Where the walk stands: the number and hash the next record must continue from. */
export interface ChainPosition {
  seq: bigint;
  hash: string;
}

/** Checks one record against the position before it: the first thing wrong with it, or undefined. */
export function checkLink(
  position: ChainPosition,
  record: ChainedFields & { hash: string },
): ChainBreak | undefined {
  if (BigInt(record.seq) !== position.seq + 1n) return 'missing_before';
  if (record.prevHash !== position.hash) return 'prev_hash_mismatch';
  if (recordHash(record) !== record.hash) return 'hash_mismatch';
  return undefined;
}
