/*
 * The signing keys' schedule, as pure functions of the keys and a time: which key signs, which are
 * published, and what a rotation changes. A key is published from `publishFrom` until `retireAfter` (open
 * while it has no successor); among the keys whose `signFrom` has come, the latest signs.
 */

export interface ScheduledKey {
  kid: string;
  publishFrom: Date;
  signFrom: Date;
  /** Null until a successor is scheduled; then the moment its last token has expired. */
  retireAfter: Date | null;
}

/** Leeway for clocks that differ between instances and the services verifying their tokens. */
export const CLOCK_LEEWAY_MS = 60_000;

const retired = (key: ScheduledKey, at: Date) => key.retireAfter !== null && key.retireAfter <= at;

/** The key that signs at `at`: the latest whose signing has begun and that is not retired; else none. */
export function signingKeyAt<K extends ScheduledKey>(keys: readonly K[], at: Date): K | undefined {
  let chosen: K | undefined;
  for (const key of keys) {
    if (key.signFrom > at || retired(key, at)) continue;
    if (chosen === undefined || key.signFrom > chosen.signFrom) chosen = key;
  }
  return chosen;
}

/** The keys the JWKS lists at `at`: published and not retired, oldest first. */
export function publishedAt<K extends ScheduledKey>(keys: readonly K[], at: Date): K[] {
  return keys
    .filter((key) => key.publishFrom <= at && !retired(key, at))
    .sort((a, b) => a.publishFrom.getTime() - b.publishFrom.getTime());
}

/**
 * A rotation at `now`: the new key is published now and signs after `publishAheadMs` (so every cache of the
 * JWKS has it first); every key still without an end stops signing then, and is retired once a token it
 * signed just before has expired (`ttlMs`), with the clock leeway.
 */
export function rotation(
  keys: readonly ScheduledKey[],
  now: Date,
  publishAheadMs: number,
  ttlMs: number,
): { next: { publishFrom: Date; signFrom: Date }; retire: { kid: string; retireAfter: Date }[] } {
  const signFrom = new Date(now.getTime() + publishAheadMs);
  const retireAfter = new Date(signFrom.getTime() + ttlMs + CLOCK_LEEWAY_MS);
  return {
    next: { publishFrom: now, signFrom },
    retire: keys.filter((key) => key.retireAfter === null).map((key) => ({ kid: key.kid, retireAfter })),
  };
}

/** The keys that may be deleted at `at`: retired ones. */
export function droppable<K extends ScheduledKey>(keys: readonly K[], at: Date): K[] {
  return keys.filter((key) => retired(key, at));
}
