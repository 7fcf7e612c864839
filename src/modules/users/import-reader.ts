import { open } from 'node:fs/promises';
import path from 'node:path';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { CsvError, parse } from 'csv-parse';

export type ImportFormat = 'csv' | 'jsonl';

export const IMPORT_FORMATS: readonly ImportFormat[] = ['csv', 'jsonl'];

/** One user of the file: its fields as read (strings from CSV; JSON values from JSON lines). */
export interface ImportRecord {
  /** 1-based line of the file where the record ends (where it starts, too, unless a quoted field spans lines). */
  line: number;
  fields?: Record<string, unknown>;
  /** Why the line could not even be read as a record (bad JSON, a wrong number of CSV fields). */
  unreadable?: string;
}

/** The columns every file must have; `password` is Laravel's name of the hash column (`password_hash` also works). */
export const REQUIRED_COLUMNS = ['email', 'username', 'slug', 'gender', 'created_at'] as const;
const HASH_COLUMNS = ['password', 'password_hash'];

/** The file as a whole cannot be read (no header, a missing column, a broken quote): nothing after it is. */
export class ImportFileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ImportFileError';
  }
}

/**
 * The format of the file: from its extension (`.csv`, `.jsonl`, `.ndjson`), else from its first byte after a
 * byte-order mark and blanks (`{` is JSON lines, anything else CSV). Reads at most 256 bytes.
 */
export async function detectFormat(file: string): Promise<ImportFormat> {
  const extension = path.extname(file).toLowerCase();
  if (extension === '.csv') return 'csv';
  if (extension === '.jsonl' || extension === '.ndjson') return 'jsonl';
  const handle = await open(file, 'r');
  try {
    const { buffer, bytesRead } = await handle.read(Buffer.alloc(256), 0, 256, 0);
    const start = buffer
      .subarray(0, bytesRead)
      .toString('utf8')
      .replace(/^\uFEFF/, '')
      .trimStart();
    return start.startsWith('{') ? 'jsonl' : 'csv';
  } finally {
    await handle.close();
  }
}

export function readImportRecords(source: Readable, format: ImportFormat): AsyncGenerator<ImportRecord> {
  return format === 'csv' ? readCsv(source) : readJsonLines(source);
}

function checkColumns(columns: readonly string[]): void {
  const missing = REQUIRED_COLUMNS.filter((name) => !columns.includes(name));
  if (!HASH_COLUMNS.some((name) => columns.includes(name))) missing.push('password' as never);
  if (missing.length > 0) {
    throw new ImportFileError(
      `The header (line 1) lacks the column${missing.length > 1 ? 's' : ''} ${missing.join(', ')}`,
    );
  }
}

/**
 * CSV with a header row, through csv-parse's stream (quoted fields, commas and line breaks in quotes, a BOM,
 * CRLF or LF). Empty lines are skipped; an empty field reads as absent, as Laravel reads an empty parameter.
 * Iterated with `for await`, so the parser reads on only as fast as the caller takes records.
 */
async function* readCsv(source: Readable): AsyncGenerator<ImportRecord> {
  const parser = source.pipe(
    parse({ bom: true, skip_empty_lines: true, relax_column_count: true, info: true }),
  );
  // pipe() does not pass a read error on: without this the parser would wait for ever for the rest.
  source.once('error', (error) => parser.destroy(error));
  let header: string[] | undefined;
  try {
    for await (const { record, info } of parser as AsyncIterable<{
      record: string[];
      info: { lines: number };
    }>) {
      if (header === undefined) {
        header = record.map((name) => name.trim().toLowerCase());
        checkColumns(header);
        continue;
      }
      if (record.length !== header.length) {
        yield {
          line: info.lines,
          unreadable: `The line has ${record.length} fields; the header has ${header.length}.`,
        };
        continue;
      }
      const fields: Record<string, unknown> = {};
      header.forEach((name, index) => {
        const value = record[index];
        if (value !== undefined && value !== '') fields[name] = value;
      });
      yield { line: info.lines, fields };
    }
  } catch (error) {
    if (error instanceof CsvError) {
      const line = (error as CsvError & { lines?: number }).lines;
      throw new ImportFileError(
        `The file is not valid CSV${line ? ` at line ${line}` : ''}: ${error.message}`,
      );
    }
    throw error;
  } finally {
    source.destroy();
  }
  if (header === undefined) throw new ImportFileError('The file is empty: it needs a header row');
}

/** One JSON object per line; blank lines are skipped, a BOM before the first is dropped. */
async function* readJsonLines(source: Readable): AsyncGenerator<ImportRecord> {
  const lines = createInterface({ input: source, crlfDelay: Number.POSITIVE_INFINITY });
  let line = 0;
  try {
    for await (const text of lines) {
      line++;
      const json = (line === 1 ? text.replace(/^\uFEFF/, '') : text).trim();
      if (json === '') continue;
      let value: unknown;
      try {
        value = JSON.parse(json);
      } catch {
        yield { line, unreadable: 'The line is not valid JSON.' };
        continue;
      }
      if (typeof value !== 'object' || value === null || Array.isArray(value)) {
        yield { line, unreadable: 'The line is not a JSON object.' };
        continue;
      }
      const fields: Record<string, unknown> = {};
      for (const [name, field] of Object.entries(value)) {
        // null or "" is absent, as in CSV (and as Laravel reads an empty parameter).
        if (field !== null && field !== '') fields[name.toLowerCase()] = field;
      }
      yield { line, fields };
    }
  } finally {
    lines.close();
    source.destroy();
  }
}
