import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  detectFormat,
  ImportFileError,
  type ImportFormat,
  type ImportRecord,
  readImportRecords,
} from '../../src/modules/users/import-reader.js';

const HEADER = 'email,username,slug,gender,created_at,password';

async function read(text: string | string[], format: ImportFormat): Promise<ImportRecord[]> {
  const records: ImportRecord[] = [];
  for await (const record of readImportRecords(Readable.from(Array.isArray(text) ? text : [text]), format)) {
    records.push(record);
  }
  return records;
}

describe('import reader: CSV', () => {
  it('reads a header and rows, with the line number of each row', async () => {
    const records = await read(
      `${HEADER}\na@x.co,kim,kim1,1,2020-01-02 03:04:05,$2y$h\nb@x.co,lee,lee1,0,d,h\n`,
      'csv',
    );
    expect(records).toEqual([
      {
        line: 2,
        fields: {
          email: 'a@x.co',
          username: 'kim',
          slug: 'kim1',
          gender: '1',
          created_at: '2020-01-02 03:04:05',
          password: '$2y$h',
        },
      },
      {
        line: 3,
        fields: {
          email: 'b@x.co',
          username: 'lee',
          slug: 'lee1',
          gender: '0',
          created_at: 'd',
          password: 'h',
        },
      },
    ]);
  });

  it('drops a BOM, reads CRLF, skips empty lines (counting them), keeps commas and quotes in quoted fields', async () => {
    const text = `\uFEFF${HEADER}\r\n\r\n"a,b@x.co",kim,"s""q",1,d,h\r\n\r\n\r\nc@x.co,lee,s,0,d,h\r\n`;
    const records = await read(text, 'csv');
    expect(records.map((r) => [r.line, r.fields?.email, r.fields?.slug])).toEqual([
      [3, 'a,b@x.co', 's"q'],
      [6, 'c@x.co', 's'],
    ]);
  });

  it('reads the header case-insensitively, ignores extra columns and takes an empty field as absent', async () => {
    const records = await read(
      'ID,Email,Username,Slug,Gender,Created_At,Password,remember_token\n7,a@x.co,,s,,d,h,t\n',
      'csv',
    );
    expect(records).toEqual([
      {
        line: 2,
        fields: { id: '7', email: 'a@x.co', slug: 's', created_at: 'd', password: 'h', remember_token: 't' },
      },
    ]);
  });

  it('accepts password_hash for the hash column', async () => {
    const records = await read(
      'email,username,slug,gender,created_at,password_hash\na@x.co,k,s,1,d,h\n',
      'csv',
    );
    expect(records[0]?.fields?.password_hash).toBe('h');
  });

  it('reports a row with the wrong number of fields as unreadable and goes on', async () => {
    const records = await read(
      `${HEADER}\na@x.co,kim\nb@x.co,lee,s,0,d,h,extra\nc@x.co,park,s,1,d,h\n`,
      'csv',
    );
    expect(records.map((r) => [r.line, r.unreadable ?? r.fields?.email])).toEqual([
      [2, 'The line has 2 fields; the header has 6.'],
      [3, 'The line has 7 fields; the header has 6.'],
      [4, 'c@x.co'],
    ]);
  });

  it('reads records split across chunks anywhere', async () => {
    const text = `${HEADER}\na@x.co,kim,"quoted, slug",1,d,h\n`;
    const chunks = [...text].map((character) => character);
    const records = await read(chunks, 'csv');
    expect(records).toHaveLength(1);
    expect(records[0]?.fields?.slug).toBe('quoted, slug');
  });

  it('stops on a header without the required columns, on a broken quote, and on an empty file', async () => {
    await expect(read('email,username\na,b\n', 'csv')).rejects.toThrow(
      new ImportFileError('The header (line 1) lacks the columns slug, gender, created_at, password'),
    );
    await expect(read(`${HEADER}\na@x.co,"kim,s,1,d,h\n`, 'csv')).rejects.toThrow(ImportFileError);
    await expect(read('', 'csv')).rejects.toThrow(
      new ImportFileError('The file is empty: it needs a header row'),
    );
  });
});

describe('import reader: JSON lines', () => {
  it('reads one object a line, skips blank lines, reports bad lines by number and goes on', async () => {
    const text = [
      '\uFEFF{"email":"a@x.co","username":"kim","gender":1}',
      '',
      '{"email": "b@x.co", "slug": null, "bio": ""}\r',
      '{not json',
      '[1,2]',
      '"text"',
      '   ',
      '{"Email":"c@x.co"}',
    ].join('\n');
    expect(await read(text, 'jsonl')).toEqual([
      { line: 1, fields: { email: 'a@x.co', username: 'kim', gender: 1 } },
      { line: 3, fields: { email: 'b@x.co' } },
      { line: 4, unreadable: 'The line is not valid JSON.' },
      { line: 5, unreadable: 'The line is not a JSON object.' },
      { line: 6, unreadable: 'The line is not a JSON object.' },
      { line: 8, fields: { email: 'c@x.co' } },
    ]);
  });
});

describe('import format detection', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'accounts-import-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it.each([
    ['users.csv', '{"looks":"like json"}', 'csv'],
    ['users.JSONL', 'email,username', 'jsonl'],
    ['users.ndjson', 'email', 'jsonl'],
    ['users.txt', '\uFEFF  \n{"email":"a@x.co"}', 'jsonl'],
    ['users', 'email,username', 'csv'],
    ['empty', '', 'csv'],
  ])('%s starting %j is %s', async (name, content, format) => {
    const file = path.join(dir, name);
    await writeFile(file, content);
    expect(await detectFormat(file)).toBe(format);
  });
});

describe('import reader: a read error', () => {
  it.each(['csv', 'jsonl'] as const)('fails the %s reading instead of ending it quietly', async (format) => {
    const failing = new Readable({
      read() {
        this.push(format === 'csv' ? `${HEADER}\na@x.co,k,s,1,d,h\n` : '{"email":"a@x.co"}\n');
        this.destroy(Object.assign(new Error('EIO: i/o error, read'), { code: 'EIO' }));
      },
    });
    const reading = (async () => {
      for await (const _ of readImportRecords(failing, format)) {
        // drain
      }
    })();
    await expect(reading).rejects.toThrow('EIO');
  });
});
