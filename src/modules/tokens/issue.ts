import { sql } from 'kysely';
import { Precompiled } from '../../db/precompiled.js';
import type { Executor, TableInserter } from '../../db/transaction.js';
import { type AccountEventInsert, accountEvent, insertAccountEventQuery } from '../account-events/outbox.js';
import type { SessionMethod } from '../account-events/types.js';

/*
 * The statements that write a session's token, each with the token's `session.created` event in the same
 * statement (a data-modifying CTE): a session exists exactly when its event does, at no extra round trip.
 */

export interface NewToken {
  id: string;
  userId: string;
  tokenHash: Buffer;
  name: string | null;
  expiresAt: Date | null;
}

/** The INSERT of a new token; also part of an email sign-up's one write. */
export function insertTokenQuery(db: TableInserter, token: NewToken, method: SessionMethod) {
  return db.insertInto('api_tokens').values({
    id: token.id,
    user_id: token.userId,
    token_hash: token.tokenHash,
    name: token.name,
    expires_at: token.expiresAt,
    sign_in_method: method,
  });
}

/** The `session.created` event of a new token: its row id is the session's id (never the token). */
export function sessionCreated(token: NewToken, method: SessionMethod): AccountEventInsert {
  return accountEvent('session.created', token.userId, {
    user_id: token.userId,
    session_id: token.id,
    method,
  });
}

/**
 * A new token and its `session.created` event in one statement (the event a data-modifying CTE): compiled,
 * and prepared on a server, once.
 */
export const INSERT_TOKEN = Precompiled.named(
  (
    db: Executor,
    { token, event, method }: { token: NewToken; event: AccountEventInsert; method: SessionMethod },
  ) =>
    insertTokenQuery(
      db.with('session_event', (qc) => insertAccountEventQuery(qc, event)),
      token,
      method,
    ),
);

/**
 * A sign-in's token, written only if the user's hash is still the one checked and the user is neither
 * disabled nor scheduled for deletion, the user row share-locked for the statement (the same lock the
 * transactional sign-in takes). The values are cast: in a SELECT list their types are not inferred from the
 * target columns.
 */
export const INSERT_IF_SIGN_IN_HOLDS = Precompiled.named(
  (
    db: Executor,
    { token, checkedHash, event }: { token: NewToken; checkedHash: string; event: AccountEventInsert },
  ) =>
    db
      .with('issued', (qc) =>
        qc
          .insertInto('api_tokens')
          .columns(['id', 'user_id', 'token_hash', 'name', 'expires_at', 'sign_in_method'])
          .expression((eb) =>
            eb
              .selectFrom('users')
              .select([
                sql<string>`${token.id}::uuid`.as('id'),
                'users.id as user_id',
                sql<Buffer>`${token.tokenHash}::bytea`.as('token_hash'),
                sql<string | null>`${token.name}::text`.as('name'),
                sql<Date | null>`${token.expiresAt}::timestamptz`.as('expires_at'),
                sql<string>`'password'::text`.as('sign_in_method'),
              ])
              .where('users.id', '=', token.userId)
              .where('users.password_hash', '=', checkedHash)
              .where('users.disabled_at', 'is', null)
              .where('users.deletion_scheduled_at', 'is', null)
              .forShare(),
          )
          .returning('api_tokens.id'),
      )
      // The session's event, only when the token was written (a row of `issued`): the same round trip.
      .with('session_event', (qc) =>
        qc
          .insertInto('account_events')
          .columns(['id', 'type', 'user_id', 'data', 'traceparent'])
          .expression((eb) =>
            eb
              .selectFrom('issued')
              .select([
                sql<string>`${event.id}::uuid`.as('id'),
                sql<string>`${event.type}::text`.as('type'),
                sql<string | null>`${event.userId}::uuid`.as('user_id'),
                sql<string>`${event.data}::jsonb`.as('data'),
                sql<string | null>`${event.traceparent}::text`.as('traceparent'),
              ]),
          ),
      )
      .selectFrom('issued')
      .select('issued.id'),
);
