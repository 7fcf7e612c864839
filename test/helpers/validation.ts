import { vi } from 'vitest';
import type { Column } from '../../src/db/users-indexes.js';
import type { TakenLookup } from '../../src/validation/types.js';

/**
 * The users' uniqueness lookups, one per column as the rules are handed them, over an in-memory set of
 * "column:lower(value)" entries; `taken` records every question asked, with its column.
 */
export function lookups(held: string[] = []) {
  const entries = new Set(held.map((entry) => entry.toLowerCase()));
  const taken = vi.fn(async (column: Column, value: string, _except: string | undefined) =>
    entries.has(`${column}:${value.toLowerCase()}`),
  );
  const of =
    (column: Column): TakenLookup =>
    (value, except) =>
      taken(column, value, except);
  return { taken, email: of('email'), username: of('username'), slug: of('slug') };
}
