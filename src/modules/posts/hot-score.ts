/**
 * The hot score, as the database computes it (`post_hot_score` in migration 0004, a stored generated column):
 * `log10(max(likes, 1)) + epoch_seconds(created_at) / 45000`. Kept here in TypeScript for the tests and the
 * documentation of where decay overtakes likes; the service itself never computes it.
 */
export const HOT_DECAY_SECONDS = 45_000;

export function hotScore(likes: number, createdAt: Date): number {
  return Math.log10(Math.max(likes, 1)) + createdAt.getTime() / 1000 / HOT_DECAY_SECONDS;
}

/**
 * How much younger a post with `newLikes` must be to rank above one with `oldLikes`: every tenfold of likes is
 * worth 45,000 s (12.5 h) of age. Negative when the newer post already has more likes.
 */
export function overtakeSeconds(oldLikes: number, newLikes: number): number {
  return HOT_DECAY_SECONDS * (Math.log10(Math.max(oldLikes, 1)) - Math.log10(Math.max(newLikes, 1)));
}
