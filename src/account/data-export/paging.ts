/** Rows read per query: a big account is never held in memory whole. */
export const EXPORT_PAGE = 200;

/** Keyset pages, `EXPORT_PAGE` rows each, until one comes back short. */
export async function* keysetPages<T, K>(
  read: (after: K | undefined, limit: number) => Promise<T[]>,
  keyOf: (row: T) => K,
): AsyncGenerator<T[]> {
  let after: K | undefined;
  for (;;) {
    const page = await read(after, EXPORT_PAGE);
    if (page.length > 0) yield page;
    const last = page.at(-1);
    if (page.length < EXPORT_PAGE || last === undefined) return;
    after = keyOf(last);
  }
}
