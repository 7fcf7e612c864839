import { ValidationError } from '../../errors.js';
import type { NewBanner } from './repo.js';

/** Whether the app shows the banner now, will, or did: `starts_at` ≤ now < `ends_at`, an open bound open. */
export type BannerState = 'active' | 'scheduled' | 'ended';

export function bannerState(
  banner: { starts_at: string | null; ends_at: string | null },
  now = Date.now(),
): BannerState {
  if (banner.starts_at !== null && Date.parse(banner.starts_at) > now) return 'scheduled';
  if (banner.ends_at !== null && Date.parse(banner.ends_at) <= now) return 'ended';
  return 'active';
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A page's cursor: the last banner's display order and id (`<position>_<id>`), the index's own key. */
export function bannerCursor(banner: { position: number; id: string }): string {
  return `${banner.position}_${banner.id}`;
}

/** The key a cursor names; anything else is the 422 on `cursor`. */
export function readBannerCursor(cursor: string | undefined): { position: number; id: string } | undefined {
  if (cursor === undefined) return undefined;
  const match = /^(-?\d{1,7})_(.{36})$/.exec(cursor);
  if (!match?.[1] || !match[2] || !UUID.test(match[2])) {
    throw new ValidationError({ cursor: [{ rule: 'in' }] });
  }
  return { position: Number(match[1]), id: match[2].toLowerCase() };
}

/** The bounds of a schedule, refused when it ends before it starts (the 422 names `ends_at`). */
export function checkSchedule(startsAt: Date | null, endsAt: Date | null): void {
  if (startsAt && endsAt && endsAt <= startsAt) {
    throw new ValidationError({ ends_at: [{ rule: 'after', params: { date: 'starts_at' } }] });
  }
}

/**
 * What an edit changes, from its validated values: a field sent empty is cleared (no link, an open bound,
 * position 0), a field not sent is kept. `sent` holds the names the request carried.
 */
export function bannerChanges(
  sent: ReadonlySet<string>,
  params: { link_url?: string; position?: number; starts_at?: string; ends_at?: string },
): Partial<Omit<NewBanner, 'id'>> {
  const changes: Partial<Omit<NewBanner, 'id'>> = {};
  if (sent.has('link_url')) changes.link_url = params.link_url ?? null;
  if (sent.has('position')) changes.position = params.position ?? 0;
  if (sent.has('starts_at')) changes.starts_at = params.starts_at ? new Date(params.starts_at) : null;
  if (sent.has('ends_at')) changes.ends_at = params.ends_at ? new Date(params.ends_at) : null;
  return changes;
}

/** Command-line options left out arrive as undefined; an empty one (`--link-url ''`) is absent too. */
export function withoutEmpty(input: Record<string, string | undefined>): Record<string, string> {
  const bag: Record<string, string> = {};
  for (const [key, value] of Object.entries(input)) {
    if (value !== undefined && value.trim() !== '') bag[key] = value.trim();
  }
  return bag;
}
