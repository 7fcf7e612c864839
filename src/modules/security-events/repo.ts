import { sql } from 'kysely';
import { Precompiled, rawStatement } from '../../db/precompiled.js';
import type { SecurityEventRow } from '../../db/schema.js';
import type { Executor, TableInserter } from '../../db/transaction.js';
import type { ActivityCursor } from './cursor.js';
import { COUNT_WINDOW_MINUTES } from './types.js';

/** One event as its INSERT takes it. */
export interface SecurityEventInsert {
  id: string;
  userId: string;
  type: string;
  ip: string | null;
  userAgent: string | null;
  deviceKey: string | null;
  /** The details as JSON text: one value of a precompiled statement, not a group of them. */
  details: string;
}

/** The INSERT of one event; also part of an email sign-up's one write (its `account_created`). */
export function insertSecurityEventQuery(db: TableInserter, event: SecurityEventInsert) {
  return db.insertInto('security_events').values({
    id: event.id,
    user_id: event.userId,
    type: event.type,
    ip: event.ip,
    user_agent: event.userAgent,
    device_key: event.deviceKey,
    details: event.details,
  });
}

/** The window a counted event falls in: now, rounded down to COUNT_WINDOW_MINUTES, by the database's clock. */
const COUNT_WINDOW = sql<Date>`to_timestamp(floor(extract(epoch FROM now()) / ${sql.lit(COUNT_WINDOW_MINUTES * 60)}) * ${sql.lit(COUNT_WINDOW_MINUTES * 60)})`;

/**
 * A sign-in's event (SecurityEventsRepo.insertSignIn): every sign-in writes one, so it is prepared once per
 * connection instead of planned on every login.
 */
const INSERT_SIGN_IN = Precompiled.named(
  (db: Executor, { event, knownDevice }: { event: SecurityEventInsert; knownDevice: boolean }) =>
    rawStatement(
      db,
      sql<{
        new_device: boolean;
      }>`INSERT INTO security_events (id, user_id, type, ip, user_agent, device_key, details)
      SELECT ${event.id}::uuid, ${event.userId}::uuid, 'sign_in', ${event.ip}::text, ${event.userAgent}::text,
        ${event.deviceKey}::text, ${event.details}::jsonb || jsonb_build_object('new_device',
          NOT ${knownDevice}::boolean
          AND EXISTS (SELECT 1 FROM security_events
            WHERE user_id = ${event.userId}::uuid AND type IN ('sign_in', 'account_created'))
          AND NOT EXISTS (SELECT 1 FROM security_events
            WHERE user_id = ${event.userId}::uuid AND type IN ('sign_in', 'account_created')
              AND device_key = ${event.deviceKey}::text))
      RETURNING (details->>'new_device')::boolean AS new_device`,
    ),
);

/** The SQL of the security activity log. */
export class SecurityEventsRepo {
  constructor(private readonly db: Executor) {}

  with(trx: Executor): SecurityEventsRepo {
    return new SecurityEventsRepo(trx);
  }

  async insert(event: SecurityEventInsert): Promise<void> {
    await insertSecurityEventQuery(this.db, event).execute();
  }

  /**
   * A sign-in's event, with `new_device` worked out in the same statement (no read before it): true when the
   * account has an earlier sign-in or its registration on record (a baseline) and none of them came from
   * this device family, unless the client proved the device otherwise (`knownDevice`: it presented a token
   * of this account). Both probes run on the (user_id, device_key) partial index, whose predicate the
   * literal type list matches. Returns what it decided.
   */
  async insertSignIn(event: SecurityEventInsert, knownDevice: boolean): Promise<{ newDevice: boolean }> {
    const [row] = await INSERT_SIGN_IN.execute(this.db, { event, knownDevice });
    return { newDevice: row?.new_device === true };
  }

  /**
   * A counted event: the first of its account's current window inserts the row (count 1); every later one
   * bumps its count and `last_at` — one atomic upsert on the (user_id, type, counted_window) unique index, so
   * concurrent occurrences on any number of instances still make one row. `at` stays the first occurrence's,
   * so a row never moves in the keyset order of a list being paged.
   */
  async insertCounted(event: SecurityEventInsert): Promise<void> {
    await sql`INSERT INTO security_events (id, user_id, type, ip, user_agent, device_key, counted_window, details)
      VALUES (${event.id}::uuid, ${event.userId}::uuid, ${event.type}, ${event.ip}::text,
        ${event.userAgent}::text, ${event.deviceKey}::text, ${COUNT_WINDOW},
        ${event.details}::jsonb || jsonb_build_object('count', 1, 'last_at', now()))
      ON CONFLICT (user_id, type, counted_window) WHERE counted_window IS NOT NULL
      DO UPDATE SET details = security_events.details || jsonb_build_object(
        'count', coalesce((security_events.details->>'count')::integer, 1) + 1, 'last_at', now())`.execute(
      this.db,
    );
  }

  /**
   * One page of the user's events, newest first, after `after`: on the (user_id, at DESC, id DESC) index,
   * keyset (never OFFSET). Reads `limit` rows; the caller asks for one more to learn whether a page follows.
   */
  async page(userId: string, after: ActivityCursor | undefined, limit: number): Promise<SecurityEventRow[]> {
    let query = this.db
      .selectFrom('security_events')
      .selectAll()
      .where('user_id', '=', userId)
      .orderBy('at', 'desc')
      .orderBy('id', 'desc')
      .limit(limit);
    if (after) {
      query = query.where(sql<boolean>`(at, id) < (${after.at}::timestamptz, ${after.id}::uuid)`);
    }
    return query.execute();
  }

  /**
   * Deletes up to `batch` events older than `days` days, oldest first, on the `at` index. SKIP LOCKED: two
   * instances pruning at once take different rows instead of waiting on each other. Returns how many.
   */
  async pruneBatch(days: number, batch: number): Promise<number> {
    const result = await sql`DELETE FROM security_events WHERE id IN (
        SELECT id FROM security_events
        WHERE at < now() - make_interval(days => ${days})
        ORDER BY at
        LIMIT ${batch}
        FOR UPDATE SKIP LOCKED
      )`.execute(this.db);
    return Number(result.numAffectedRows ?? 0);
  }

  /**
   * Takes the account's `kind` alert slot if its last alert is at least `minutes` old (or there is none): one
   * atomic upsert on the (user_id, kind) key. Of concurrent callers, on any instances, exactly one gets it:
   * the others wait for its row and then find it fresh. True when this caller may send.
   */
  async claimAlertSlot(userId: string, kind: string, minutes: number): Promise<boolean> {
    const { rows } = await sql<{
      user_id: string;
    }>`INSERT INTO security_alert_slots (user_id, kind, sent_at) VALUES (${userId}::uuid, ${kind}, now())
      ON CONFLICT (user_id, kind) DO UPDATE SET sent_at = now()
      WHERE security_alert_slots.sent_at <= now() - make_interval(mins => ${minutes})
      RETURNING user_id`.execute(this.db);
    return rows.length > 0;
  }

  /** The activity cursors' HMAC key (migration 0016). */
  async cursorKey(): Promise<Uint8Array> {
    const row = await this.db
      .selectFrom('service_secrets')
      .select('secret')
      .where('name', '=', 'security_events_cursor')
      .executeTakeFirstOrThrow();
    return row.secret;
  }
}
