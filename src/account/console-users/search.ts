import { ValidationError } from '../../errors.js';
import { typedNumberStart } from '../../lib/phone-number.js';
import { iso } from '../../lib/time.js';
import { roleCan } from '../../modules/staff/permissions.js';
import type { UserSearchCursorCodec } from '../../modules/users/search-cursor.js';
import { phoneKeyOf, type SearchRow, type UserSearchRepo } from '../../modules/users/search-repo.js';
import { validate } from '../../validation/engine.js';
import { toCsv } from './csv.js';
import { birthYear, maskEmail, maskPhone } from './masking.js';
import { exportRules, SEARCH_LIMIT, type SearchField, type SearchMode, searchRules } from './rules.js';
import type { StaffActor, StaffGate } from './staff-access.js';

/** The most rows one export carries: a search that matches more is narrowed first. */
export const EXPORT_MAX_ROWS = 10_000;
const EXPORT_PAGE = 500;
const UUID_SHAPE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
/** How people write a number: digits, `+`, spaces, dashes, dots and brackets; a letter is no number. */
const PHONE_SHAPE = /^[\d\s+().-]+$/;
const FIRST_ID = '00000000-0000-0000-0000-000000000000';
const LAST_ID = 'ffffffff-ffff-ffff-ffff-ffffffffffff';

/**
 * One user of a search page, masked: the email as `m***@example.com`, the phone as `010-****-5678`, the birth
 * date as its year.
 */
export interface SearchItem {
  id: string;
  email: string;
  username: string;
  slug: string;
  email_verified: boolean;
  phone: string | null;
  disabled_at: string | null;
  deletion_due_at: string | null;
  birth_year: string | null;
  created_at: string;
}

export interface SearchPage {
  users: SearchItem[];
  next_cursor: string | null;
}

export interface SearchRequest {
  field: string;
  mode?: string | undefined;
  query: string;
  limit?: number | string | undefined;
  cursor?: string | undefined;
}

export interface ExportRequest {
  field: string;
  mode?: string | undefined;
  query: string;
  reason?: string | undefined;
}

/** The CSV of a search, how many users it holds, and whether it is masked. */
export interface SearchExport {
  csv: string;
  row_count: number;
  masked: boolean;
}

interface Search {
  field: SearchField;
  mode: SearchMode;
  query: string;
}

const isoOrNull = (date: Date | null) => (date === null ? null : iso(date));

function item(row: SearchRow): SearchItem {
  return {
    id: row.id,
    email: maskEmail(row.email),
    username: row.username,
    slug: row.slug,
    email_verified: row.email_verified,
    phone: row.phone === null ? null : maskPhone(row.phone),
    disabled_at: isoOrNull(row.disabled_at),
    deletion_due_at: isoOrNull(row.deletion_due_at),
    birth_year: birthYear(row.birth_date),
    created_at: iso(row.created_at),
  };
}

const CSV_HEADER = [
  'id',
  'email',
  'username',
  'slug',
  'email_verified',
  'disabled_at',
  'deletion_due_at',
  'birth_date',
  'created_at',
  'phone',
];

function csvRow(row: SearchRow, masked: boolean): string[] {
  const shown = item(row);
  return [
    row.id,
    masked ? shown.email : row.email,
    row.username,
    row.slug,
    String(row.email_verified),
    shown.disabled_at ?? '',
    shown.deletion_due_at ?? '',
    (masked ? shown.birth_year : row.birth_date) ?? '',
    shown.created_at,
    (masked ? shown.phone : row.phone) ?? '',
  ];
}

/**
 * The console's user search: by one field, exactly or by prefix, a keyset page at a time,
 * each on an index; and its export as CSV. Masked by default; each search and export is recorded.
 */
export class ConsoleUserSearch {
  constructor(
    private readonly repo: UserSearchRepo,
    private readonly cursors: UserSearchCursorCodec,
    private readonly gate: StaffGate,
  ) {}

  async search(actor: StaffActor, request: SearchRequest): Promise<SearchPage> {
    const params = await validate(searchRules, { ...request });
    const search = {
      field: params.field as SearchField,
      mode: (params.mode ?? 'exact') as SearchMode,
      query: params.query,
    };
    const limit = params.limit ?? SEARCH_LIMIT.default;
    let after: string | undefined;
    if (params.cursor !== undefined) {
      const cursor = await this.cursors.decode(params.cursor);
      if (!cursor || cursor.field !== search.field) throw new ValidationError({ cursor: [{ rule: 'in' }] });
      after = cursor.key;
    }
    const access = {
      permission: 'users.read',
      action: 'users.search',
      subjectId: null,
      reasonRequired: false,
    } as const;
    return this.gate.run(
      actor,
      access,
      async () => {
        // One more than the page: whether another follows, so next_cursor is null exactly on the last page.
        const rows = await this.rows(search, after, limit + 1);
        const page = rows.slice(0, limit);
        const last = page.at(-1);
        return {
          users: page.map(item),
          next_cursor:
            rows.length > limit && last
              ? await this.cursors.encode({ field: search.field, key: last.key })
              : null,
        };
      },
      (page) => ({ field: search.field, mode: search.mode, query: search.query, rows: page.users.length }),
    );
  }

  /**
   * Every user the search finds (up to EXPORT_MAX_ROWS) as CSV: masked unless the role may export in full
   * (`users.export_unmasked`). The record carries the row count and whether it was masked.
   */
  async export(actor: StaffActor, request: ExportRequest): Promise<SearchExport> {
    const params = await validate(exportRules, { ...request });
    const search = {
      field: params.field as SearchField,
      mode: (params.mode ?? 'exact') as SearchMode,
      query: params.query,
    };
    const masked = !roleCan(actor.role, 'users.export_unmasked');
    const access = {
      permission: 'users.export',
      action: 'users.export',
      subjectId: null,
      reason: params.reason,
      reasonRequired: true,
    } as const;
    return this.gate.run(
      actor,
      access,
      async () => {
        const lines = [CSV_HEADER];
        let after: string | undefined;
        for (;;) {
          const want = Math.min(EXPORT_PAGE, EXPORT_MAX_ROWS - (lines.length - 1));
          const rows = await this.rows(search, after, want);
          for (const row of rows) lines.push(csvRow(row, masked));
          if (rows.length < want || lines.length - 1 >= EXPORT_MAX_ROWS) break;
          after = rows.at(-1)?.key;
        }
        return { csv: toCsv(lines), row_count: lines.length - 1, masked };
      },
      (done) => ({ ...search, rows: done.row_count, masked: done.masked }),
    );
  }

  private rows(search: Search, after: string | undefined, limit: number): Promise<SearchRow[]> {
    const { field, mode, query } = search;
    if (field === 'id') {
      const lower = query.toLowerCase();
      if (mode === 'exact') {
        return UUID_SHAPE.test(lower) && after === undefined
          ? this.repo.idRange(lower, lower, undefined, limit)
          : Promise.resolve([]);
      }
      const first = lower + FIRST_ID.slice(lower.length);
      const last = lower + LAST_ID.slice(lower.length);
      // A prefix that cannot begin a UUID matches nothing (and must not reach a uuid comparison).
      if (!UUID_SHAPE.test(first) || !UUID_SHAPE.test(last)) return Promise.resolve([]);
      return this.repo.idRange(first, last, after, limit);
    }
    if (field === 'phone') {
      const start = PHONE_SHAPE.test(query) ? typedNumberStart(query) : undefined;
      if (start === undefined) return Promise.resolve([]);
      return this.repo.prefix(field, mode === 'exact' ? phoneKeyOf(start) : start, after, limit);
    }
    if (mode === 'exact') return after === undefined ? this.repo.exact(field, query) : Promise.resolve([]);
    return this.repo.prefix(field, query, after, limit);
  }
}
