import type { ColumnType } from 'kysely';
import type { Timestamp } from './column-types.js';

/* The tables of account events and their delivery to the app's other services (docs/events.md). */

/** 0027: one account event, written with the change it describes (src/modules/account-events). */
export interface AccountEventsTable {
  id: string;
  type: string;
  /** The account the event is about; no foreign key, so `user.deleted` outlives its user. */
  user_id: string | null;
  /** The event's `data` as JSON text on insert (one value of a precompiled statement), an object on select. */
  data: ColumnType<unknown, string, string>;
  occurred_at: Timestamp;
  dispatched_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
}
