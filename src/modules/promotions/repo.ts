import { type ExpressionBuilder, sql } from 'kysely';
import type { BannerRow, Database, UserRow } from '../../db/schema.js';
import type { Executor } from '../../db/transaction.js';

/** Most banners the app is ever sent at once: a bound on the answer, far above what a home screen shows. */
export const MAX_ACTIVE_BANNERS = 100;

export interface NewBanner {
  id: string;
  title: string;
  image_url: string;
  link_url: string | null;
  position: number;
  starts_at: Date | null;
  ends_at: Date | null;
}

/** `starts_at` ≤ now < `ends_at`, a missing bound being open. */
const isActiveNow = (eb: ExpressionBuilder<Database, 'banners'>) =>
  eb.and([
    eb.or([eb('starts_at', 'is', null), eb('starts_at', '<=', sql<Date>`now()`)]),
    eb.or([eb('ends_at', 'is', null), eb('ends_at', '>', sql<Date>`now()`)]),
  ]);

export class BannersRepo {
  constructor(private readonly db: Executor) {}

  with(db: Executor): BannersRepo {
    return new BannersRepo(db);
  }

  /** The banners shown now, in display order: a walk of the (position, id) index, which carries both bounds. */
  listActive(): Promise<BannerRow[]> {
    return this.db
      .selectFrom('banners')
      .selectAll()
      .where(isActiveNow)
      .orderBy('position')
      .orderBy('id')
      .limit(MAX_ACTIVE_BANNERS)
      .execute();
  }

  /** Every banner, past and future ones too (operators), in display order. */
  listAll(): Promise<BannerRow[]> {
    return this.db.selectFrom('banners').selectAll().orderBy('position').orderBy('id').execute();
  }

  /** A page of every banner in display order, after the banner at (`position`, `id`): the same index. */
  page(after: { position: number; id: string } | undefined, limit: number): Promise<BannerRow[]> {
    let query = this.db.selectFrom('banners').selectAll();
    if (after !== undefined) {
      query = query.where((eb) => eb(eb.refTuple('position', 'id'), '>', eb.tuple(after.position, after.id)));
    }
    return query.orderBy('position').orderBy('id').limit(limit).execute();
  }

  findById(id: string): Promise<BannerRow | undefined> {
    return this.db.selectFrom('banners').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /** Changes the given columns of one banner; undefined when there is no such banner. */
  update(id: string, changes: Partial<Omit<NewBanner, 'id'>>): Promise<BannerRow | undefined> {
    return this.db
      .updateTable('banners')
      .set({ ...changes, updated_at: sql<Date>`now()` })
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirst();
  }

  /** Every banner's image address (the orphan sweep asks; operators keep a few dozen banners). */
  async imageUrls(): Promise<string[]> {
    const rows = await this.db.selectFrom('banners').select('image_url').execute();
    return rows.map((row) => row.image_url);
  }

  insert(banner: NewBanner): Promise<BannerRow> {
    return this.db.insertInto('banners').values(banner).returningAll().executeTakeFirstOrThrow();
  }

  async delete(id: string): Promise<boolean> {
    const result = await this.db.deleteFrom('banners').where('id', '=', id).executeTakeFirst();
    return result.numDeletedRows > 0n;
  }
}

export type RankedUser = UserRow & { rank: number };

/** The inspirer sampling pool: ranks 1..N kept dense by the triggers of migration 0005. */
export class InspirersRepo {
  constructor(private readonly db: Executor) {}

  with(db: Executor): InspirersRepo {
    return new InspirersRepo(db);
  }

  /** N, the highest rank (one probe of the rank index's end); 0 for an empty pool. */
  async poolSize(): Promise<number> {
    const row = await this.db
      .selectFrom('inspirers')
      .select((eb) => eb.fn.max('rank').as('size'))
      .executeTakeFirst();
    return Number(row?.size ?? 0);
  }

  /**
   * The eligible inspirers holding these ranks, none of `excluded`: one probe of the unique rank index and
   * one of the users primary key per rank, whatever the size of either table. Eligibility is checked again
   * here although the pool holds only eligible users: a user disabled, or whose deletion was scheduled, a
   * moment ago is never shown.
   */
  findAtRanks(ranks: number[], excluded: string[]): Promise<RankedUser[]> {
    return this.atRanksQuery(ranks, excluded).execute();
  }

  /** The query of findAtRanks, unexecuted (tests read its plan). */
  atRanksQuery(ranks: number[], excluded: string[]) {
    let query = this.db
      .selectFrom('inspirers')
      .innerJoin('users', 'users.id', 'inspirers.user_id')
      .selectAll('users')
      .select('inspirers.rank')
      .where('inspirers.rank', '=', sql<number>`any(${sql.val(ranks)}::int[])`)
      .where('users.is_inspirer', '=', true)
      .where('users.disabled_at', 'is', null)
      .where('users.deletion_scheduled_at', 'is', null);
    if (excluded.length > 0) {
      query = query.where('users.id', '!=', sql<string>`all(${sql.val(excluded)}::uuid[])`);
    }
    return query;
  }
}
