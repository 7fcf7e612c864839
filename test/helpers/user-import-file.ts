import { type KyselyPlugin, ValuesNode } from 'kysely';
import type { ImportLineError } from '../../src/modules/users/import-service.js';

/**
 * The file the user-import suite imports: 100,000 users of an old app with about 1 % bad lines of every kind
 * the import reports, produced a line at a time, and a probe of the INSERTs it causes.
 */

export const LINES = 100_000;
export const PASSWORD = 'old app password 1';
const TAKEN = (field: string, where: string) => `The ${field} has already been taken (${where}).`;
export const INVALID_CREDENTIALS = [
  401,
  'Unauthorized',
  'The login credentials are invalid.',
  { status: 'authentication_failed' },
] as const;
const EARLIER = 'by an earlier line of this file';
const IN_DATABASE = 'in the database';

/** A user of the old app on data line `i` (file line i + 2: the header is line 1). */
const good = (i: number) => ({
  email: `member${i}@old.example.com`,
  username: `member${i}`,
  slug: `member-${i}`,
  gender: String(i % 2),
  created_at: i % 3 === 0 ? '2019-03-04 05:06:07' : '2020-11-12T13:14:15.123+09:00',
});

interface BadLine {
  fields: string;
  /** The reasons reported on the first run and on a re-run (taken names are then in the database). */
  first: string[];
  again: string[];
}

/**
 * The ~1% bad lines, one kind after another: every kind of failure the import reports, none of them at the
 * same place twice. `preexisting` is the email of a user registered through the API before the import.
 */
function badLine(i: number, kind: number, hashed: string, preexisting: string): BadLine {
  const g = good(i);
  const previous = good(i - 1);
  const row = (f: Partial<typeof g> & { hash?: string }) =>
    [
      f.email ?? g.email,
      f.username ?? g.username,
      f.slug ?? g.slug,
      f.gender ?? g.gender,
      f.created_at ?? g.created_at,
      f.hash ?? hashed,
    ].join(',');
  const same = (reasons: string[]) => ({ first: reasons, again: reasons });
  switch (kind) {
    case 0:
      return {
        fields: row({ email: `not-an-email-${i}` }),
        ...same(['The email must be a valid email address.']),
      };
    case 1:
      return {
        fields: row({ email: previous.email.toUpperCase() }),
        first: [TAKEN('email', EARLIER)],
        again: [TAKEN('email', IN_DATABASE)],
      };
    case 2:
      return {
        fields: row({ username: previous.username.toUpperCase() }),
        first: [TAKEN('username', EARLIER)],
        again: [TAKEN('username', IN_DATABASE)],
      };
    case 3:
      // `rn` looks like `m`: the skeleton index takes it for the previous line's username.
      return {
        fields: row({ username: `rnember${i - 1}` }),
        first: [TAKEN('username', EARLIER)],
        again: [TAKEN('username', IN_DATABASE)],
      };
    case 4:
      return {
        fields: row({ slug: previous.slug.toUpperCase() }),
        first: [TAKEN('slug', EARLIER)],
        again: [TAKEN('slug', IN_DATABASE)],
      };
    case 5:
      return {
        fields: row({ hash: i % 2 ? `$2x$${hashed.slice(4)}` : '5f4dcc3b5aa765d61d8327deb882cf99' }),
        ...same([
          'The password must be a bcrypt hash of the old app ($2y$, $2a$ or $2b$, cost 04 to 16, 60 characters).',
        ]),
      };
    case 6:
      return { fields: row({ gender: '2' }), ...same(['The selected gender is invalid.']) };
    case 7:
      return {
        fields: row({ created_at: '2023-02-30 10:00:00' }),
        ...same(['The created at is not a valid date.']),
      };
    case 8:
      // A name the old app allowed and today's rules do not: reported, never changed.
      return { fields: row({ username: `member.${i}.` }), ...same(['The username format is invalid.']) };
    case 9:
      return { fields: row({ email: preexisting }), ...same([TAKEN('email', IN_DATABASE)]) };
    case 10:
      return { fields: `${g.email},${g.username}`, ...same(['The line has 2 fields; the header has 6.']) };
    default:
      return {
        fields: row({ slug: 'ab', gender: 'x' }),
        ...same(['The slug must be at least 4 characters.', 'The gender must be an integer.']),
      };
  }
}

const KINDS = 12;

/** The file, produced a line at a time as the importer reads it; `produced` counts the lines handed over. */
export function generatedFile(hashed: string, preexisting: string) {
  const expected = { first: [] as ImportLineError[], again: [] as ImportLineError[], good: 0 };
  let produced = 0;
  function* lines(): Generator<string> {
    produced++;
    yield 'email,username,slug,gender,created_at,password\n';
    for (let i = 0; i < LINES; i++) {
      produced++;
      const line = i + 2;
      if (i % 100 === 37) {
        const bad = badLine(i, Math.floor(i / 100) % KINDS, hashed, preexisting);
        expected.first.push({ line, reasons: bad.first });
        expected.again.push({ line, reasons: bad.again });
        yield `${bad.fields}\n`;
      } else {
        expected.good++;
        const g = good(i);
        yield `${[g.email, g.username, g.slug, g.gender, g.created_at, hashed].join(',')}\n`;
      }
    }
  }
  return { lines, expected, produced: () => produced };
}

/** Counts the INSERTs into users and their rows, and how far the reader was ahead of each. */
export function insertProbe(readAhead: () => number) {
  const inserts: Array<{ rows: number; readAhead: number }> = [];
  const plugin: KyselyPlugin = {
    transformQuery(args) {
      const node = args.node;
      if (node.kind === 'InsertQueryNode' && node.into?.table.identifier.name === 'users') {
        const values = node.values;
        inserts.push({
          rows: values && ValuesNode.is(values) ? values.values.length : -1,
          readAhead: readAhead(),
        });
      }
      return node;
    },
    transformResult: (args) => Promise.resolve(args.result),
  };
  return { plugin, inserts };
}
