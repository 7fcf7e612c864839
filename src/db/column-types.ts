import type { ColumnType } from 'kysely';

/** A `timestamptz` column: read as a Date, written as a Date or an ISO string (or left to its default). */
export type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>;

/** A stored image (a profile picture, a post's image): its address, size and thumbnails. */
export interface ProfilePicture {
  url: string;
  width: number;
  height: number;
  thumbnails: Record<string, string>;
  /** Storage keys of every stored file, so a replaced image can be removed; never sent to clients. */
  keys?: string[];
}
