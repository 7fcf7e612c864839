import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { SecondFactorLockedError } from '../../src/account/second-factor/guess-bound.js';
import { IdempotencyKeyReusedError, OverloadedError, SecondFactorRequiredError } from '../../src/errors.js';
import { ERROR_CATALOGUE, type ErrorCode } from '../../src/http/error-catalogue.js';
import { envelopeFor, errorCode } from '../../src/http/errors.js';
import { PortOneUnavailableError } from '../../src/modules/identity/portone.js';
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
      'access_tokens_not_configured',
      'identity_verification_not_configured',
      'sms_not_configured',
      'provider_not_configured',
    ];
    for (const [code, entry] of entries) {
      if (entry.status < 500) expect(entry.log?.level, code).not.toBe('error');
      else if (!quiet.includes(code)) expect(entry.log?.level, code).toBe('error');
    }
  });
});

describe('errorCode', () => {
  it('finds a subclass by the code it inherits or names, however deep', () => {
    expect(errorCode(new IdempotencyKeyReusedError())).toBe('validation_failed');
    expect(errorCode(new SecondFactorLockedError())).toBe('validation_failed');
    expect(errorCode(new PortOneUnavailableError('down'))).toBe('service_unavailable');
    expect(errorCode(new OverloadedError('hashing queue full'))).toBe('overloaded');
  });

  it('maps a framework 4xx by its status, a lost database by its error, and anything else to a fault', () => {
    const framework = (statusCode: number) => Object.assign(new Error('no'), { statusCode, code: 'FST_X' });
    expect(errorCode(framework(405))).toBe('method_not_allowed');
    expect(errorCode(framework(413))).toBe('payload_too_large');
    expect(errorCode(framework(406))).toBe('body_unparsable');
    expect(errorCode(new Error('Malformed part header'))).toBe('body_unparsable');
    expect(errorCode(Object.assign(new Error('connect'), { code: 'ECONNREFUSED' }))).toBe(
      'service_unavailable',
    );
    expect(errorCode(framework(502))).toBe('internal_error');
  });
});

describe('envelopeFor', () => {
  it('puts data.status first, then the details the entry reads from the error', () => {
    const envelope = envelopeFor('second_factor_required', new SecondFactorRequiredError('c-1'));
    expect(JSON.stringify(envelope.data)).toBe(
      '{"status":"second_factor_required","challenge":"c-1","methods":["totp","recovery_code"]}',
    );
  });

  it('answers the refusals no error is thrown for as the hand-written answers did', () => {
    expect(envelopeFor('url_unparsable')).toEqual({
      meta: { code: 400, error_type: 'BadRequestHttpException', error_message: 'Bad Request' },
      data: { url: ['The URL could not be parsed.'] },
    });
    expect(envelopeFor('host_missing').data).toEqual({ host: ['The Host header is required.'] });
    expect(envelopeFor('metrics_unauthorized')).toEqual({
      meta: { code: 401, error_type: 'UnauthorizedHttpException', error_message: 'Unauthorized' },
      data: [],
    });
  });
});
