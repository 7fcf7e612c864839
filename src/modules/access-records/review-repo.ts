import { sql } from 'kysely';
import type { Executor } from '../../db/transaction.js';

/** A month in the review's zone, as the instants it starts and ends at. */
export interface ReviewPeriod {
  from: Date;
  until: Date;
}

export interface ActorCount {
  actor_kind: 'staff' | 'cli';
  actor: string;
  count: number;
}

type Numeric = string | number | bigint;

const num = (value: Numeric | null) => Number(value ?? 0);

/**
 * The monthly review's queries (migration 0045): each reads one month of records on the `at` index and
 * groups them by actor. Working hours and the month are read in the configured zone by PostgreSQL.
 */
export class AccessReviewRepo {
  constructor(private readonly db: Executor) {}

  /** The instants the month `year`-`month` starts and ends at in `zone`. */
  async period(year: number, month: number, zone: string): Promise<ReviewPeriod> {
    const { rows } = await sql<{ from: Date; until: Date }>`SELECT
        make_timestamp(${year}::int, ${month}::int, 1, 0, 0, 0) AT TIME ZONE ${zone}::text AS from,
        (make_timestamp(${year}::int, ${month}::int, 1, 0, 0, 0) + interval '1 month') AT TIME ZONE ${zone}::text
          AS until`.execute(this.db);
    const row = rows[0];
    if (!row) throw new Error('no period');
    return { from: new Date(row.from), until: new Date(row.until) };
  }

  /** Successful actions whose name starts with `prefix`, per actor, where at least `min`. */
  async countsByActor(period: ReviewPeriod, prefix: string, min: number): Promise<ActorCount[]> {
    const { rows } = await sql<{ actor_kind: 'staff' | 'cli'; actor: string; count: Numeric }>`
      SELECT actor_kind, actor, count(*) AS count FROM access_records
      WHERE at >= ${period.from} AND at < ${period.until} AND outcome = 'ok'
        AND left(action, ${prefix.length}::int) = ${prefix}::text
      GROUP BY actor_kind, actor HAVING count(*) >= ${min}::int
      ORDER BY count(*) DESC, actor`.execute(this.db);
    return rows.map((row) => ({ ...row, count: num(row.count) }));
  }

  /** Exports per actor with their rows, where either reaches its bound. */
  async exportsByActor(
    period: ReviewPeriod,
    minExports: number,
    minRows: number,
  ): Promise<(ActorCount & { rows: number })[]> {
    const { rows } = await sql<{ actor_kind: 'staff' | 'cli'; actor: string; count: Numeric; rows: Numeric }>`
      SELECT actor_kind, actor, count(*) AS count,
        coalesce(sum(CASE WHEN jsonb_typeof(detail->'rows') = 'number' THEN (detail->>'rows')::numeric END), 0)
          AS rows
      FROM access_records
      WHERE at >= ${period.from} AND at < ${period.until} AND outcome = 'ok' AND action = 'users.export'
      GROUP BY actor_kind, actor
      HAVING count(*) >= ${minExports}::int
        OR coalesce(sum(CASE WHEN jsonb_typeof(detail->'rows') = 'number' THEN (detail->>'rows')::numeric END), 0)
          >= ${minRows}::int
      ORDER BY actor`.execute(this.db);
    return rows.map((row) => ({ ...row, count: num(row.count), rows: num(row.rows) }));
  }

  /**
   * Records outside [start, end) minutes of the day, or on a day (ISO weekday, 1 Monday … 7 Sunday) not in
   * `days`, both read in `zone`; per actor, with the first and last.
   */
  async outsideHours(
    period: ReviewPeriod,
    zone: string,
    hours: { start: number; end: number },
    days: readonly number[],
  ): Promise<(ActorCount & { first: Date; last: Date })[]> {
    const { rows } = await sql<{
      actor_kind: 'staff' | 'cli';
      actor: string;
      count: Numeric;
      first: Date;
      last: Date;
    }>`SELECT actor_kind, actor, count(*) AS count, min(at) AS first, max(at) AS last
      FROM (SELECT actor_kind, actor, at,
          extract(hour FROM at AT TIME ZONE ${zone}::text) * 60 + extract(minute FROM at AT TIME ZONE ${zone}::text)
            AS minute,
          extract(isodow FROM at AT TIME ZONE ${zone}::text)::int AS weekday
        FROM access_records WHERE at >= ${period.from} AND at < ${period.until}) AS local
      WHERE minute < ${hours.start}::int OR minute >= ${hours.end}::int
        OR weekday NOT IN (${sql.join(days.map((day) => sql`${day}::int`))})
      GROUP BY actor_kind, actor ORDER BY count(*) DESC, actor`.execute(this.db);
    return rows.map((row) => ({
      ...row,
      count: num(row.count),
      first: new Date(row.first),
      last: new Date(row.last),
    }));
  }

  /** Clock hours in which one actor touched at least `min` distinct people. */
  async manySubjects(period: ReviewPeriod, min: number): Promise<(ActorCount & { hour: Date })[]> {
    const { rows } = await sql<{ actor_kind: 'staff' | 'cli'; actor: string; hour: Date; count: Numeric }>`
      SELECT actor_kind, actor, date_trunc('hour', at) AS hour, count(DISTINCT subject_id) AS count
      FROM access_records
      WHERE at >= ${period.from} AND at < ${period.until} AND subject_id IS NOT NULL
      GROUP BY actor_kind, actor, date_trunc('hour', at)
      HAVING count(DISTINCT subject_id) >= ${min}::int
      ORDER BY hour, actor`.execute(this.db);
    return rows.map((row) => ({ ...row, count: num(row.count), hour: new Date(row.hour) }));
  }
}
