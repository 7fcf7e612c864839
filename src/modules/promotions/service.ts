import { randomInt } from 'node:crypto';
import type { RoutedReads } from '../../db/read-routing.js';
import type { BannerRow, ProfilePicture } from '../../db/schema.js';
import { NotFoundError } from '../../errors.js';
import { type Static, t } from '../../http/response-schema.js';
import { newId } from '../../lib/ids.js';
import { iso } from '../../lib/time.js';
import { validate } from '../../validation/engine.js';
import type { Params } from '../../validation/rule-list.js';
import type { ValidatedImage } from '../images/probe.js';
import { type PublicUserView, publicUserView, type UserView } from '../users/view.js';
import {
  type BannerState,
  bannerChanges,
  bannerCursor,
  bannerState,
  checkSchedule,
  readBannerCursor,
  withoutEmpty,
} from './banner-edits.js';
import type { BannersRepo, InspirersRepo, NewBanner, RankedUser } from './repo.js';
import { bannerAddRules, bannerEditRules, bannerLinkAllowed } from './rules.js';
import { drawRanks, type RandomInt } from './sampling.js';

/** A banner as its rules accepted it, before it has an id. */
type CheckedBanner = Omit<NewBanner, 'id'>;
/** What an uploaded banner's form is checked with before its image is stored (any http(s) address would do). */
const PENDING_IMAGE_URL = 'https://media.invalid/banners/pending';
export const bannerShape = t.object({
  id: t.string(),
  title: t.string(),
  image_url: t.string(),
  link_url: t.nullable(t.string()),
  position: t.integer(),
  starts_at: t.nullable(t.dateTime()),
  ends_at: t.nullable(t.dateTime()),
});
export type BannerView = Static<typeof bannerShape>;

/** `linkAllowed`: a stored link whose scheme is no longer allowed is served as no link. */
export function bannerView(row: BannerRow, linkAllowed: (link: string) => boolean): BannerView {
  return {
    id: row.id,
    title: row.title,
    image_url: row.image_url,
    link_url: row.link_url !== null && linkAllowed(row.link_url) ? row.link_url : null,
    position: row.position,
    starts_at: row.starts_at === null ? null : iso(row.starts_at),
    ends_at: row.ends_at === null ? null : iso(row.ends_at),
  };
}

/** A banner as operators list it: with whether the app shows it now, will, or did. */
export type BannerListItem = BannerView & { state: BannerState };

/** What `banner add` is given, as strings from the command line (validated by bannerAddRules). */
export type BannerInput = Record<string, string | undefined>;

/** A user as the operator sees one after marking it: the owner's view, and whether the account is disabled. */
export type InspirerUserView = UserView & { disabled_at: string | null };

/** One line of the inspirer list. */
export interface InspirerSummary {
  id: string;
  email: string;
  username: string;
  disabled_at: string | null;
}

/**
 * Being an inspirer is a flag on the user, kept by the users module (its operator service, handed in by the
 * composition root): promotions ask it to set the flag and to list who has it, by id, email or username.
 */
export interface InspirerFlags {
  setInspirer(reference: string, inspirer: boolean): Promise<InspirerUserView>;
  listInspirers(): Promise<InspirerSummary[]>;
  inspirerPage(after: string | undefined, limit: number): Promise<InspirerSummary[]>;
}

const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Rounds of drawing before a short answer is accepted. With the pool consistent (the triggers keep it so)
 * the first round always suffices: it draws `limit + excluded` ranks, of which at most `excluded` can be
 * refused. Later rounds only cover a pool that is briefly out of step with the users table.
 */
const MAX_ROUNDS = 3;

/**
 * Where a banner's uploaded image is decoded, re-encoded and stored, and removed again: the images module's
 * service, handed in by the composition root.
 */
export interface BannerImageStore {
  store(
    field: string,
    upload: ValidatedImage['file'],
    probe: ValidatedImage['probe'],
    folder: string,
  ): Promise<ProfilePicture>;
  removePicture(picture: ProfilePicture): Promise<void>;
}

/** What PromotionsService is built from. */
export interface PromotionsServiceDeps {
  banners: BannersRepo;
  inspirers: InspirersRepo;
  users: InspirerFlags;
  /** Where the public reads (banners shown now, the inspirer sample) run: a replica when one is healthy. */
  reads: RoutedReads;
  /** The apps' own schemes a banner may link to besides http(s) (BANNER_LINK_SCHEMES). */
  linkSchemes?: readonly string[];
  /** Draws the inspirer sample's ranks (crypto's randomInt unless given). */
  random?: RandomInt;
  /** Re-encodes and stores an uploaded banner image, as profile pictures and post images are. */
  images?: BannerImageStore;
  /**
   * The service's public address (PUBLIC_URL): a stored image's address may be a path on it (`/media/…`),
   * and a banner's image is an absolute http(s) address, as `banner add` requires.
   */
  publicUrl?: string;
}

export class PromotionsService {
  private readonly addRules: ReturnType<typeof bannerAddRules>;
  private readonly editRules: ReturnType<typeof bannerEditRules>;
  private readonly linkAllowed: (link: string) => boolean;

  private readonly random: RandomInt;

  constructor(private readonly deps: PromotionsServiceDeps) {
    this.addRules = bannerAddRules(deps.linkSchemes ?? []);
    this.editRules = bannerEditRules(deps.linkSchemes ?? []);
    this.linkAllowed = bannerLinkAllowed(deps.linkSchemes ?? []);
    this.random = deps.random ?? randomInt;
  }

  async activeBanners(): Promise<BannerView[]> {
    const rows = await this.deps.reads.read(undefined, (db) => this.deps.banners.with(db).listActive());
    return rows.map((row) => bannerView(row, this.linkAllowed));
  }

  async allBanners(): Promise<BannerView[]> {
    return (await this.deps.banners.listAll()).map((row) => bannerView(row, this.linkAllowed));
  }

  /** A page of every banner in display order, with each one's state; `cursor` is the last page's. */
  async bannerPage(
    cursor: string | undefined,
    limit: number,
  ): Promise<{ banners: BannerListItem[]; next_cursor: string | null }> {
    const rows = await this.deps.banners.page(readBannerCursor(cursor), limit + 1);
    const banners = rows.slice(0, limit).map((row) => {
      const view = bannerView(row, this.linkAllowed);
      return Object.assign(view, { state: bannerState(view) });
    });
    const last = banners.at(-1);
    return { banners, next_cursor: rows.length > limit && last ? bannerCursor(last) : null };
  }

  /**
   * Validated with the same engine and messages as the HTTP endpoints: a ValidationError names the field.
   * With `image` (an upload the image rule accepted), the image is re-encoded and stored once the rest of the
   * banner is accepted, and the banner shows it (`image_url` is then its address); its files are removed
   * again if the banner cannot be written.
   */
  async addBanner(input: BannerInput, image?: ValidatedImage): Promise<BannerView> {
    const { images, publicUrl } = this.deps;
    if (image === undefined || images === undefined)
      return this.insertBanner(await this.checkedBanner(input));
    // The form first, with a stand-in for the image's address: a refused form costs no render.
    const checked = await this.checkedBanner({ ...input, image_url: PENDING_IMAGE_URL });
    const picture = await images.store('image', image.file, image.probe, 'banners');
    try {
      return await this.insertBanner({ ...checked, image_url: new URL(picture.url, publicUrl).href });
    } catch (error) {
      await images.removePicture(picture);
      throw error;
    }
  }

  private async checkedBanner(input: BannerInput): Promise<CheckedBanner> {
    const params: Params<typeof this.addRules> = await validate(this.addRules, withoutEmpty(input));
    const startsAt = params.starts_at === undefined ? null : new Date(params.starts_at);
    const endsAt = params.ends_at === undefined ? null : new Date(params.ends_at);
    checkSchedule(startsAt, endsAt);
    return {
      title: params.title,
      image_url: params.image_url,
      link_url: params.link_url ?? null,
      position: params.position ?? 0,
      starts_at: startsAt,
      ends_at: endsAt,
    };
  }

  private async insertBanner(banner: CheckedBanner): Promise<BannerView> {
    return bannerView(await this.deps.banners.insert({ id: newId(), ...banner }), this.linkAllowed);
  }

  /**
   * Changes a banner's link, display order or schedule, under `banner add`'s rules: a field sent empty is
   * cleared (no link, an open bound), one not sent is kept. The schedule is checked as it will be.
   */
  async updateBanner(id: string, input: BannerInput): Promise<BannerView> {
    const params: Params<typeof this.editRules> = await validate(this.editRules, withoutEmpty(input));
    const found = UUID_PATTERN.test(id) ? await this.deps.banners.findById(id) : undefined;
    if (!found) throw new NotFoundError(`banner "${id}"`);
    const sent = new Set(Object.keys(input).filter((key) => input[key] !== undefined));
    const changes = bannerChanges(sent, params);
    checkSchedule(
      changes.starts_at === undefined ? found.starts_at : changes.starts_at,
      changes.ends_at === undefined ? found.ends_at : changes.ends_at,
    );
    const row = await this.deps.banners.update(id, changes);
    if (!row) throw new NotFoundError(`banner "${id}"`);
    return bannerView(row, this.linkAllowed);
  }

  /**
   * Which of these stored files a banner shows (the orphan sweep keeps them). A key is the end of its
   * address (`…/banners/<name>.jpg`), whatever host or media path served it when the banner was added.
   */
  async referencedMediaKeys(keys: readonly string[]): Promise<string[]> {
    const wanted = keys.filter((key) => key.startsWith('banners/'));
    if (wanted.length === 0) return [];
    const shown = new Set(
      (await this.deps.banners.imageUrls()).map((url) => url.split('/').slice(-2).join('/')),
    );
    return wanted.filter((key) => shown.has(key));
  }

  async removeBanner(id: string): Promise<void> {
    if (!UUID_PATTERN.test(id) || !(await this.deps.banners.delete(id)))
      throw new NotFoundError(`banner "${id}"`);
  }

  addInspirer(user: string): Promise<InspirerUserView> {
    return this.deps.users.setInspirer(user, true);
  }

  removeInspirer(user: string): Promise<InspirerUserView> {
    return this.deps.users.setInspirer(user, false);
  }

  listInspirers(): Promise<InspirerSummary[]> {
    return this.deps.users.listInspirers();
  }

  /** A page of the inspirers by username; `cursor` is the last page's (the username it ended at). */
  async inspirerPage(
    cursor: string | undefined,
    limit: number,
  ): Promise<{ inspirers: InspirerSummary[]; next_cursor: string | null }> {
    const rows = await this.deps.users.inspirerPage(cursor, limit + 1);
    const inspirers = rows.slice(0, limit);
    const last = inspirers.at(-1);
    return { inspirers, next_cursor: rows.length > limit && last ? last.username : null };
  }

  /**
   * A uniform random sample of at most `limit` eligible inspirers, none of `exclude` (docs/inspirers.md).
   * Ranks are drawn without replacement in a uniformly random order and the first `limit` that hold an
   * eligible, non-excluded user are kept, in that order: every such user is equally likely to be chosen.
   * Cost: one probe for N, then one indexed query for `limit + excluded` ranks — nothing grows with N.
   */
  sampleInspirers(exclude: readonly string[], limit: number): Promise<PublicUserView[]> {
    // The pool's size and its ranks read from one server, so both describe the same pool.
    return this.deps.reads.read(undefined, (db) =>
      this.sampleFrom(this.deps.inspirers.with(db), exclude, limit),
    );
  }

  private async sampleFrom(
    inspirers: InspirersRepo,
    exclude: readonly string[],
    limit: number,
  ): Promise<PublicUserView[]> {
    // An id that is not a UUID can never match a user; leaving it out keeps the uuid[] cast valid.
    const excluded = [
      ...new Set(exclude.filter((id) => UUID_PATTERN.test(id)).map((id) => id.toLowerCase())),
    ];
    const size = await inspirers.poolSize();
    const tried = new Set<number>();
    const chosen: RankedUser[] = [];
    const chosenIds = new Set<string>();
    for (let round = 0; round < MAX_ROUNDS && chosen.length < limit; round++) {
      const ranks = drawRanks(size, limit - chosen.length + excluded.length, tried, this.random);
      if (ranks.length === 0) break;
      const found = new Map((await inspirers.findAtRanks(ranks, excluded)).map((row) => [row.rank, row]));
      for (const rank of ranks) {
        const row = found.get(rank);
        if (!row || chosenIds.has(row.id) || chosen.length >= limit) continue;
        chosenIds.add(row.id);
        chosen.push(row);
      }
    }
    return chosen.map((row) => publicUserView(row));
  }
}
