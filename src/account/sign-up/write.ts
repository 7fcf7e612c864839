import { sql } from 'kysely';
import { Precompiled } from '../../db/precompiled.js';
import type { UserRow } from '../../db/schema.js';
import type { Executor } from '../../db/transaction.js';
import {
  type ClaimedMailRow,
  claimedMailRow,
  insertClaimedMailQuery,
  type MailToWrite,
} from '../../mail/outbox-repo.js';
import {
  type AccountEventInsert,
  insertAccountEventQuery,
  insertCompletedEventQuery,
} from '../../modules/account-events/outbox.js';
import {
  insertSignUpConsentsQuery,
  type SignUpConsents,
  signUpConsentsJson,
} from '../../modules/consents/repo.js';
import { insertOneTimeTokenQuery, type NewOneTimeToken } from '../../modules/lifecycle/repo.js';
import { insertSecurityEventQuery, type SecurityEventInsert } from '../../modules/security-events/repo.js';
import { insertTokenQuery, type NewToken } from '../../modules/tokens/issue.js';
import {
  accountRow,
  firstFreeSlug,
  insertAccountQuery,
  type NewAccount,
  type NewAccountRow,
} from '../../modules/users/new-account.js';

/** The rows of an email sign-up, each as its table's INSERT takes it. */
interface SignUpRows {
  /** In the slug's place, the slugs to try (`firstFreeSlug`). */
  account: NewAccountRow<string[]>;
  token: NewToken;
  verification: NewOneTimeToken;
  mail: ClaimedMailRow;
  /** Its `account_created` security event: the device it registered on is one the account knows. */
  event: SecurityEventInsert;
  consents: SignUpConsents;
  /**
   * Its `user.created` event, without the slug, the time and the consents the statement chooses
   * (emailSignUpCreated).
   */
  created: AccountEventInsert;
  /** Its token's `session.created` event. */
  session: AccountEventInsert;
}

/** The statement's time as the events' ISO 8601 (the user row's `created_at` is the same `now()`). */
const NOW_ISO = sql<string>`to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/**
 * An email sign-up's rows — the user, its API token, its verification token, the verification mail, its
 * `account_created` security event, the consent records and the account events (`user.created`,
 * `session.created`) — in one statement of data-modifying CTEs instead
 * of a transaction of seven: one round trip instead of eight, each of which costs the service and PostgreSQL
 * CPU that argon2 needs (docs/performance.md). The statement is atomic on its own, and the foreign keys of the
 * CTEs' rows are checked at its end, when the user row exists. Each INSERT is its module's own (the same
 * builder its repository runs). A derived slug is picked in the same statement: the first free of the
 * candidates (no read before it); `user.created` names it by choosing it again in its own CTE, which sees the
 * same snapshot and so the same free slug (one more index probe, no round trip).
 */
const SIGN_UP = Precompiled.named(
  (db: Executor, { account, token, verification, mail, event, consents, created, session }: SignUpRows) => {
    const withRows = db
      .with('api_token', (qc) => insertTokenQuery(qc, token, 'password'))
      .with('verification_token', (qc) => insertOneTimeTokenQuery(qc, verification))
      .with('verification_mail', (qc) => insertClaimedMailQuery(qc, mail))
      .with('security_event', (qc) => insertSecurityEventQuery(qc, event))
      .with('consent_records', (qc) => insertSignUpConsentsQuery(qc, consents))
      .with('session_event', (qc) => insertAccountEventQuery(qc, session))
      .with('created_event', (qc) =>
        insertCompletedEventQuery(
          qc,
          created,
          sql`jsonb_build_object('slug', ${firstFreeSlug(account.slug)}, 'created_at', ${NOW_ISO},
            'consents', ${signUpConsentsJson(consents)})`,
        ),
      );
    return insertAccountQuery(withRows, { ...account, slug: firstFreeSlug(account.slug) });
  },
);

export interface EmailSignUp {
  account: Omit<NewAccount, 'slug'>;
  /** The client's slug alone, or the derived candidates: the first free one is written. */
  slugs: string[];
  token: NewToken;
  verification: NewOneTimeToken;
  mail: MailToWrite;
  event: SecurityEventInsert;
  /** The consent records: every required document's current version, and the optional ones chosen. */
  consents: SignUpConsents;
  created: AccountEventInsert;
  session: AccountEventInsert;
}

/**
 * Writes an email sign-up's rows in its one statement; returns the user's. A taken email, username or
 * slug fails it whole.
 */
export async function writeEmailSignUp(db: Executor, signUp: EmailSignUp): Promise<UserRow> {
  const [row] = await SIGN_UP.execute(db, {
    account: accountRow(signUp.account, signUp.slugs),
    token: signUp.token,
    verification: signUp.verification,
    mail: claimedMailRow(signUp.mail),
    event: signUp.event,
    consents: signUp.consents,
    created: signUp.created,
    session: signUp.session,
  });
  if (!row) throw new Error('INSERT … RETURNING returned no row');
  return row;
}
