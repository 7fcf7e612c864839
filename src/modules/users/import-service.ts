import type { Executor } from '../../db/transaction.js';
import type { Column } from '../../db/users-indexes.js';
import { ValidationError } from '../../errors.js';
import { newId } from '../../lib/ids.js';
import { isLegacyBcryptHash } from '../../lib/legacy-bcrypt.js';
import { usernameSkeleton } from '../../lib/username-skeleton.js';
import { validate } from '../../validation/engine.js';
import { renderFailure } from '../../validation/messages.js';
import { rules } from '../../validation/rule-list.js';
import type { ImportRecord } from './import-reader.js';
import type { ImportedUserRow, NameHolder, UserImportRepo } from './import-repo.js';
import { emailField, genderField, slugField, usernameField } from './rules.js';

/**
 * The register rules of the fields an imported user has (src/modules/users/rules.ts), minus `unique`: taken
 * names are found by the database's unique indexes, a batch at a time, instead of four queries a line.
 */
const importRules = rules({
  email: emailField.required(),
  username: usernameField.required(),
  slug: slugField.required(),
  gender: genderField.required(),
});

/** Laravel's datetime column as exported (`2019-03-04 05:06:07`, UTC), or ISO 8601 with a zone. */
const LARAVEL_DATETIME = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})$/;
const ISO_DATETIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,6})?(Z|[+-]\d{2}:\d{2})$/;

/** The date, or undefined when it is malformed or no such day exists (`2023-02-30`). */
export function parseCreatedAt(value: unknown): Date | undefined {
  if (typeof value !== 'string') return undefined;
  const laravel = LARAVEL_DATETIME.exec(value);
  if (!laravel && !ISO_DATETIME.test(value)) return undefined;
  const date = new Date(laravel ? `${value.replace(' ', 'T')}Z` : value);
  if (Number.isNaN(date.getTime())) return undefined;
  // Date rolls 2023-02-30 over to March; the calendar day written must be the one read back.
  const [year, month, day] = value.slice(0, 10).split('-').map(Number);
  const local = laravel ? date : new Date(Date.UTC(year ?? 0, (month ?? 1) - 1, day ?? 0));
  return local.getUTCFullYear() === year && local.getUTCMonth() + 1 === month && local.getUTCDate() === day
    ? date
    : undefined;
}

const HASH_MESSAGE =
  'The password must be a bcrypt hash of the old app ($2y$, $2a$ or $2b$, cost 04 to 16, 60 characters).';

export interface ImportLineError {
  line: number;
  reasons: string[];
}

export interface ImportSummary {
  imported: number;
  /** Lines whose user is already here (same email and username): imported by an earlier run. */
  alreadyPresent: number;
  errors: number;
  /** True when nothing was written (`--dry-run`). */
  dryRun: boolean;
}

export interface ImportOptions {
  dryRun?: boolean;
  /** Rows per INSERT (and per transaction). */
  batchSize?: number;
  /** Told of each batch's failed lines, in line order, as soon as the batch is done. */
  onErrors?: (errors: ImportLineError[]) => void;
}

interface ValidLine {
  line: number;
  row: ImportedUserRow;
}

/** Thrown inside a dry run's transaction to roll it back once everything was checked. */
class DryRunRollback extends Error {}

/**
 * `accounts user import`: users of the old app, with their bcrypt hashes, a batch at a time. Every line is
 * checked with the API's rules; taken names (in the database, or by an earlier line of the file) are found by
 * the unique indexes through INSERT … ON CONFLICT DO NOTHING, so memory stays one batch whatever the file's
 * size, and a second run writes nothing: a line whose email and username are already a user's is "already
 * present", never overwritten.
 */
export class UserImportService {
  constructor(
    private readonly db: Executor,
    private readonly repo: UserImportRepo,
  ) {}

  async import(records: AsyncIterable<ImportRecord>, options: ImportOptions = {}): Promise<ImportSummary> {
    if (!options.dryRun)
      return this.importBatches(records, options, (work) => this.db.transaction().execute(work));
    // A dry run makes the same inserts in one transaction and rolls it back: it finds exactly what a real run
    // would, in-file duplicates across batches included, and writes nothing.
    let summary: ImportSummary | undefined;
    try {
      await this.db.transaction().execute(async (trx) => {
        summary = await this.importBatches(records, options, (work) => work(trx));
        throw new DryRunRollback();
      });
    } catch (error) {
      if (!(error instanceof DryRunRollback)) throw error;
    }
    if (!summary) throw new Error('dry run ended without a summary');
    return { ...summary, dryRun: true };
  }

  private async importBatches(
    records: AsyncIterable<ImportRecord>,
    options: ImportOptions,
    inBatchTransaction: <T>(work: (trx: Executor) => Promise<T>) => Promise<T>,
  ): Promise<ImportSummary> {
    const batchSize = options.batchSize ?? 1000;
    // Ids are UUIDv7, in time order: a user whose id sorts after this one was written during this run.
    const runStart = newId();
    const summary: ImportSummary = { imported: 0, alreadyPresent: 0, errors: 0, dryRun: false };
    let valid: ValidLine[] = [];
    let invalid: ImportLineError[] = [];
    const flush = async () => {
      const batch = valid;
      const failed = invalid;
      valid = [];
      invalid = [];
      const outcome = await inBatchTransaction((trx) => this.writeBatch(trx, batch, runStart));
      summary.imported += outcome.imported;
      summary.alreadyPresent += outcome.alreadyPresent;
      const errors = [...failed, ...outcome.errors].sort((a, b) => a.line - b.line);
      summary.errors += errors.length;
      if (errors.length > 0) options.onErrors?.(errors);
    };
    for await (const record of records) {
      const checked = await checkRecord(record);
      if ('reasons' in checked) invalid.push(checked);
      else valid.push(checked);
      if (valid.length + invalid.length >= batchSize) await flush();
    }
    if (valid.length + invalid.length > 0) await flush();
    return summary;
  }

  private async writeBatch(
    trx: Executor,
    batch: ValidLine[],
    runStart: string,
  ): Promise<{ imported: number; alreadyPresent: number; errors: ImportLineError[] }> {
    const repo = this.repo.with(trx);
    const inserted = await repo.insertNew(batch.map((valid) => valid.row));
    await repo.recordCreated(batch.map((valid) => valid.row).filter((row) => inserted.has(row.id)));
    const skipped = batch.filter((valid) => !inserted.has(valid.row.id));
    if (skipped.length === 0) return { imported: inserted.size, alreadyPresent: 0, errors: [] };
    const holders = await repo.holdersOf({
      emails: skipped.map((valid) => valid.row.email),
      usernames: skipped.map((valid) => valid.row.username),
      skeletons: skipped.map((valid) => valid.row.username_skeleton),
      slugs: skipped.map((valid) => valid.row.slug),
    });
    let alreadyPresent = 0;
    const errors: ImportLineError[] = [];
    for (const { line, row } of skipped) {
      const reasons = conflictReasons(row, holders, runStart);
      if (reasons.length === 0) alreadyPresent++;
      else errors.push({ line, reasons });
    }
    return { imported: inserted.size, alreadyPresent, errors };
  }
}

/** A line as a row to insert, or every reason it cannot be one. */
async function checkRecord(record: ImportRecord): Promise<ValidLine | ImportLineError> {
  if (record.unreadable !== undefined || record.fields === undefined) {
    return { line: record.line, reasons: [record.unreadable ?? 'The line is empty.'] };
  }
  const fields = record.fields;
  const reasons: string[] = [];
  let params: Awaited<ReturnType<typeof validate<typeof importRules>>> | undefined;
  try {
    params = await validate(importRules, fields);
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    for (const [field, failures] of Object.entries(error.failures)) {
      for (const failure of failures) reasons.push(renderFailure(field, failure, 'en'));
    }
  }
  const createdAt = parseCreatedAt(fields.created_at);
  if (fields.created_at === undefined) reasons.push(renderFailure('created_at', { rule: 'required' }, 'en'));
  else if (!createdAt) reasons.push(renderFailure('created_at', { rule: 'date' }, 'en'));
  const hash = fields.password ?? fields.password_hash;
  if (hash === undefined) reasons.push(renderFailure('password', { rule: 'required' }, 'en'));
  else if (typeof hash !== 'string' || !isLegacyBcryptHash(hash)) reasons.push(HASH_MESSAGE);
  if (reasons.length > 0 || !params || !createdAt) return { line: record.line, reasons };
  return {
    line: record.line,
    row: {
      id: newId(),
      email: params.email,
      username: params.username,
      username_skeleton: usernameSkeleton(params.username),
      slug: params.slug,
      gender: params.gender,
      password_hash: hash as string,
      created_at: createdAt,
    },
  };
}

/** A UUIDv7 (version digit 7) after the run's first id; ids of another kind were never written by a run. */
function writtenDuringRun(id: string, runStart: string): boolean {
  return id.charAt(14) === '7' && id > runStart;
}

/**
 * Why a skipped row was not written: each name some other user holds, and whether that user was here
 * before the run or was written by an earlier line of the file. None when the holder of its email also has
 * its username and was here before (a user imported by an earlier run: "already present").
 */
function conflictReasons(row: ImportedUserRow, holders: NameHolder[], runStart: string): string[] {
  const same = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();
  const byEmail = holders.find((holder) => same(holder.email, row.email));
  if (byEmail && !writtenDuringRun(byEmail.id, runStart) && same(byEmail.username, row.username)) return [];
  const taken: Array<[Column, NameHolder | undefined]> = [
    ['email', byEmail],
    [
      'username',
      holders.find(
        (holder) => same(holder.username, row.username) || holder.username_skeleton === row.username_skeleton,
      ),
    ],
    ['slug', holders.find((holder) => same(holder.slug, row.slug))],
  ];
  const reasons = taken.flatMap(([field, holder]) => {
    if (!holder) return [];
    const where = writtenDuringRun(holder.id, runStart)
      ? 'by an earlier line of this file'
      : 'in the database';
    return [`${renderFailure(field, { rule: 'unique' }, 'en').replace(/\.$/, '')} (${where}).`];
  });
  // The holder went away between the insert and this look (a deletion meanwhile): a re-run settles it.
  return reasons.length > 0
    ? reasons
    : ['The user could not be written (changed meanwhile); run the import again.'];
}
