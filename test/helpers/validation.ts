import { vi } from 'vitest';
import type { Column, Lookups } from '../../src/validation/types.js';

/** Lookups over an in-memory set of "column:lower(value)" entries, recording every question asked. */
export function lookups(taken: string[] = []) {
  const held = new Set(taken.map((entry) => entry.toLowerCase()));
  const spy = vi.fn(async (column: Column, value: string, _except?: string) =>
    held.has(`${column}:${value.toLowerCase()}`),
  );
  // No account behind any address: the login rule's lookup answers "none" (its tests run on a database).
  return { taken: spy, accountByEmail: async () => undefined } satisfies Lookups;
}
