import { type RawBuilder, sql } from 'kysely';
import type { Executor, TableInserter } from '../../db/transaction.js';
import { newId } from '../../lib/ids.js';
import { ambientTraceparent } from '../../lib/tracing.js';
import type { AccountEventData, AccountEventType } from './types.js';

/*
 * Writing an account event: the outbox row every change writes beside itself. Apart from the repo (reading
 * and delivering them) because every module that makes a change writes its event in its own statement or
 * transaction — the tokens module its sessions', the account layer the rest — and must not import another
 * module's repo to do it.
 */

/** One event as its INSERT takes it. */
export interface AccountEventInsert {
  id: string;
  type: AccountEventType;
  userId: string | null;
  /** The `data` as JSON text: one value of a precompiled statement, not a group of them. */
  data: string;
  /**
   * The writing request's W3C traceparent (lib/tracing.ts), null when tracing is off: always present, so a
   * precompiled statement binds it as a value of each call, never as the first call's constant.
   */
  traceparent: string | null;
}

/** An event of `type` about `userId`, with a fresh id (the `webhook-id` of every delivery of it). */
export function accountEvent<T extends AccountEventType>(
  type: T,
  userId: string | null,
  data: AccountEventData[T],
): AccountEventInsert {
  return { id: newId(), type, userId, data: JSON.stringify(data), traceparent: ambientTraceparent() };
}

/**
 * The INSERT of one event: run it on the transaction of the change it describes, or as a data-modifying CTE
 * of the change's own statement, so the event commits exactly when the change does.
 */
export function insertAccountEventQuery(db: TableInserter, event: AccountEventInsert) {
  return db.insertInto('account_events').values({
    id: event.id,
    type: event.type,
    user_id: event.userId,
    data: event.data,
    traceparent: event.traceparent,
  });
}

/**
 * The INSERT of an event whose `data` its statement completes: `event.data` merged with `completion`, a jsonb
 * object of the same statement's (what only the statement knows, such as the slug it chose).
 */
export function insertCompletedEventQuery(
  db: TableInserter,
  event: AccountEventInsert,
  completion: RawBuilder<unknown>,
) {
  return db.insertInto('account_events').values({
    id: event.id,
    type: event.type,
    user_id: event.userId,
    data: sql<string>`${event.data}::jsonb || ${completion}`,
    traceparent: event.traceparent,
  });
}

/** Writes one event on `trx`, the transaction of the change it describes. */
export async function writeAccountEvent<T extends AccountEventType>(
  trx: Executor,
  type: T,
  userId: string | null,
  data: AccountEventData[T],
): Promise<void> {
  await insertAccountEventQuery(trx, accountEvent(type, userId, data)).execute();
}
