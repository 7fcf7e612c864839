/** A uniform random integer in [0, maxExclusive): `crypto.randomInt` in the service, a seeded one in tests. */
export type RandomInt = (maxExclusive: number) => number;

/**
 * Draws up to `count` distinct ranks, uniformly at random, from 1..size minus those in `tried` (which it
 * extends). Successive calls continue one uniformly random ordering of 1..size, drawn without replacement:
 * what `PromotionsService.sampleInspirers` needs for its sample to be uniform (docs/inspirers.md).
 *
 * The work is proportional to `count` when few ranks are left out, and to `size` only when most of 1..size
 * are wanted anyway (then size < 2·count + tried.size, all small).
 */
export function drawRanks(size: number, count: number, tried: Set<number>, randomInt: RandomInt): number[] {
  const untried = size - tried.size;
  const wanted = Math.min(count, untried);
  if (wanted <= 0) return [];
  const drawn: number[] = [];
  if (wanted * 2 >= untried) {
    // Dense: a partial Fisher–Yates shuffle of the untried ranks (rejection would loop too often here).
    const pool: number[] = [];
    for (let rank = 1; rank <= size; rank++) if (!tried.has(rank)) pool.push(rank);
    for (let i = 0; i < wanted; i++) {
      const j = i + randomInt(pool.length - i);
      const picked = pool[j] as number;
      pool[j] = pool[i] as number;
      pool[i] = picked;
      drawn.push(picked);
    }
  } else {
    // Sparse: more than half the untried ranks stay free, so a try succeeds with probability > untried / 2·size.
    while (drawn.length < wanted) {
      const rank = 1 + randomInt(size);
      if (tried.has(rank)) continue;
      tried.add(rank);
      drawn.push(rank);
    }
    return drawn;
  }
  for (const rank of drawn) tried.add(rank);
  return drawn;
}
