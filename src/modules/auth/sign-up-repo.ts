import type { QueryCreator } from 'kysely';
import { Precompiled } from '../../db/precompiled.js';
import type { Database, UserRow } from '../../db/schema.js';
import type { Executor } from '../../db/transaction.js';
import {
  type ClaimedMailValues,
  claimedMailValues,
  insertClaimedMailQuery,
  type MailToWrite,
} from '../../mail/outbox-repo.js';
import {
  insertOneTimeTokenQuery,
  type NewOneTimeToken,
  type OneTimeTokenValues,
  oneTimeTokenValues,
} from '../lifecycle/repo.js';
import { insertTokenQuery, type NewToken, type TokenValues, tokenValues } from '../tokens/repo.js';
import {
  type AccountValues,
  accountValues,
  firstFreeSlug,
  insertAccountQuery,
  type NewAccount,
} from '../users/repo.js';

/** The account's values with, in the slug's place, the slugs to try (`firstFreeSlug`). */
type AccountWithSlugs = AccountValues<string[]>;

type SignUpValues = [...AccountWithSlugs, ...TokenValues, ...OneTimeTokenValues, ...ClaimedMailValues];

/** Where each row's values start in `SignUpValues`. */
const TOKEN_AT = 9;
const VERIFICATION_AT = TOKEN_AT + 5;
const MAIL_AT = VERIFICATION_AT + 6;
const ARITY = MAIL_AT + 9;

/** Each CTE name widens the query creator's table map; the INSERTs after it need only the real tables. */
function tablesOnly<Tables extends Database>(creator: QueryCreator<Tables>): QueryCreator<Database> {
  return creator as unknown as QueryCreator<Database>;
}

/**
 * An email sign-up's four rows — the user, its API token, its verification token and the verification mail —
 * in one statement of data-modifying CTEs instead of a five-statement transaction: one round trip instead of
 * six, each of which costs the service and PostgreSQL CPU that argon2 needs (docs/performance.md). The
 * statement is atomic on its own, and the foreign keys of the three CTEs' rows are checked at its end, when
 * the user row exists. Each INSERT is its module's own (the same builder its repository runs). A derived
 * slug is picked in the same statement: the first free of the candidates (no read before it).
 */
const SIGN_UP = new Precompiled(ARITY, (db: Executor, ...values: SignUpValues) => {
  const token = values.slice(TOKEN_AT, VERIFICATION_AT) as TokenValues;
  const verification = values.slice(VERIFICATION_AT, MAIL_AT) as OneTimeTokenValues;
  const mail = values.slice(MAIL_AT, ARITY) as ClaimedMailValues;
  const withRows = db
    .with('api_token', (qc) => insertTokenQuery(tablesOnly(qc), ...token))
    .with('verification_token', (qc) => insertOneTimeTokenQuery(tablesOnly(qc), ...verification))
    .with('verification_mail', (qc) => insertClaimedMailQuery(tablesOnly(qc), ...mail));
  const [id, email, username, skeleton, slugs, ...rest] = values.slice(0, TOKEN_AT) as AccountWithSlugs;
  return insertAccountQuery(
    tablesOnly(withRows),
    id,
    email,
    username,
    skeleton,
    firstFreeSlug(slugs),
    ...rest,
  );
});

export interface EmailSignUp {
  account: Omit<NewAccount, 'slug'>;
  /** The client's slug alone, or the derived candidates: the first free one is written. */
  slugs: string[];
  token: NewToken;
  verification: NewOneTimeToken;
  mail: MailToWrite;
}

/** The SQL of an email sign-up's one write. */
export class SignUpRepo {
  constructor(private readonly db: Executor) {}

  /** Writes the four rows; returns the user's. A taken email, username or slug fails it whole. */
  async insert(signUp: EmailSignUp): Promise<UserRow> {
    const [row] = await SIGN_UP.execute(
      this.db,
      ...accountValues(signUp.account, signUp.slugs),
      ...tokenValues(signUp.token),
      ...oneTimeTokenValues(signUp.verification),
      ...claimedMailValues(signUp.mail),
    );
    if (!row) throw new Error('INSERT … RETURNING returned no row');
    return row;
  }
}
