import { sql } from 'kysely';
import type { DatabaseHandle } from '../../src/db/client.js';

export interface StoredEvent {
  id: string;
  type: string;
  user_id: string | null;
  data: Record<string, unknown>;
}

/**
 * The account events of a user as stored, oldest first; events of one transaction share its time and
 * come in type order, so a test never depends on the order a statement wrote them in.
 */
export async function accountEventsOf(handle: DatabaseHandle, userId: string): Promise<StoredEvent[]> {
  const { rows } = await sql<StoredEvent>`
    SELECT id, type, user_id, data FROM account_events WHERE user_id = ${userId}::uuid
    ORDER BY occurred_at, type, data::text`.execute(handle.db);
  return rows;
}

/** Every account event in the database (what a secret scan reads). */
export async function allAccountEvents(handle: DatabaseHandle): Promise<StoredEvent[]> {
  const { rows } = await sql<StoredEvent>`
    SELECT id, type, user_id, data FROM account_events ORDER BY occurred_at, type`.execute(handle.db);
  return rows;
}

/** How many account events the database holds. */
export async function accountEventCount(handle: DatabaseHandle): Promise<number> {
  const { rows } = await sql<{ n: number }>`SELECT count(*)::int AS n FROM account_events`.execute(handle.db);
  return rows[0]?.n ?? -1;
}

/**
 * A reader of the events written for `userId` from now on: each call returns those written since the
 * previous one (none repeated), so each step of a test sees exactly what its action wrote.
 */
export async function eventsFrom(
  handle: DatabaseHandle,
  userId: string,
): Promise<() => Promise<StoredEvent[]>> {
  const seen = new Set((await accountEventsOf(handle, userId)).map((event) => event.id));
  return async () => {
    const fresh = (await accountEventsOf(handle, userId)).filter((event) => !seen.has(event.id));
    for (const event of fresh) seen.add(event.id);
    return fresh;
  };
}

/** An event as a test compares it: its type and data. */
export const typed = (events: StoredEvent[]) => events.map(({ type, data }) => ({ type, data }));
