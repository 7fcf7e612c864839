import unhomoglyph from 'unhomoglyph';

/** UTS #39 skeleton: decompose, map every confusable to its prototype, decompose again. */
function skeleton(text: string): string {
  return unhomoglyph(text.normalize('NFD')).normalize('NFD');
}

/**
 * What a username looks like, for telling look-alikes apart (Unicode UTS #39 §4 skeletons, with the
 * confusables table of the `unhomoglyph` package): `pauI` and `paul`, `rnrn` and `mm`, `0l` and `ol` share one.
 * Usernames are unique case-insensitively, so the skeleton is folded too: skeleton, lower-case, skeleton
 * again (lower-casing can make a new confusable: `M` → `m` → `rn`). Only compared, never shown.
 */
export function usernameSkeleton(username: string): string {
  return skeleton(skeleton(username.normalize('NFC')).toLowerCase());
}
