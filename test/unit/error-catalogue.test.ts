import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ERROR_CATALOGUE, type ErrorCode } from '../../src/http/error-catalogue.js';
import { ROOT } from '../helpers/process.js';

interface Row {
  status: number;
  type: string;
  message: string;
  data: string;
}

/** The rows of docs/api.md's table of errors: status, `error_type`, `error_message` and the `data` cell. */
function documentedRows(): Row[] {
  const page = readFileSync(path.join(ROOT, 'docs/api.md'), 'utf8');
  const section = page.slice(
    page.indexOf('\n## Errors\n'),
    page.indexOf('\n## ', page.indexOf('\n## Errors\n') + 1),
  );
  return section
    .split('\n')
    .filter((line) => /^\|\s*\d{3}\s*\|/.test(line))
    .map((line) => {
      const [status = '', type = '', message = '', data = ''] = line
        .split('|')
        .slice(1)
        .map((cell) => cell.trim());
      const unquote = (cell: string) => cell.replace(/^`|`$/g, '');
      return { status: Number(status), type: unquote(type), message: unquote(message), data };
    });
}

const key = (row: { status: number; type: string; message: string }) =>
  `${row.status} ${row.type} ${row.message}`;
const entries = Object.entries(ERROR_CATALOGUE) as [ErrorCode, (typeof ERROR_CATALOGUE)[ErrorCode]][];

describe('the error catalogue', () => {
  it('has one row in docs/api.md for each answer it can give, and no row it cannot give', () => {
    const documented = documentedRows().map(key).sort();
    const catalogued = [...new Set(entries.map(([, entry]) => key(entry)))].sort();
    expect(documented).toEqual(catalogued);
  });

  it('documents the data.status of each answer that has one', () => {
    const rows = documentedRows();
    for (const [code, entry] of entries) {
      if (entry.reason === undefined) continue;
      const row = rows.find((candidate) => key(candidate) === key(entry));
      expect(row?.data, code).toContain(`"status":"${entry.reason}"`);
    }
  });

  it('gives every answer an error status and a type name', () => {
    for (const [code, entry] of entries) {
      expect(entry.status, code).toBeGreaterThanOrEqual(400);
      expect(entry.status, code).toBeLessThan(600);
      expect(entry.type, code).toMatch(/^[A-Z][A-Za-z]+$/);
    }
  });

  it('logs every 5xx as an error an operator sees, except load shedding and set-up answers', () => {
    const quiet: ErrorCode[] = [
      'overloaded',
      'second_factor_not_configured',
      'identity_verification_not_configured',
      'provider_not_configured',
    ];
    for (const [code, entry] of entries) {
      if (entry.status < 500) expect(entry.log?.level, code).not.toBe('error');
      else if (!quiet.includes(code)) expect(entry.log?.level, code).toBe('error');
    }
  });
});
