import { readFileSync } from 'node:fs';

/** Where Linux shows the transparent huge page mode, the one in effect in brackets: `always [madvise] never`. */
const THP_SETTING = '/sys/kernel/mm/transparent_hugepage/enabled';

/** The mode in brackets, or undefined when the text has none. */
export function selectedHugePageMode(setting: string): string | undefined {
  return /\[(\w+)\]/.exec(setting)?.[1];
}

/**
 * A line for the operator when transparent huge pages are off on this host; undefined otherwise (or when the
 * setting cannot be read: not Linux, a kernel without them). The argon2 library maps each hash's memory
 * (ARGON2_MEMORY_KIB, 19 MiB by default) fresh from the kernel and asks for huge pages for it. Without them
 * a hash takes about 4,900 page faults instead of about 270, and the kernel's share of its CPU grows from
 * about 2 ms to about 8 ms: measured on 2 cores, 98–112 hashes a second instead of 145–164 (docs/DEPLOY.md,
 * "Sizing"). Database and Redis tuning guides often recommend `never`, so a shared host may have it.
 */
export function hugePagesWarning(
  read: (path: string) => string = (path) => readFileSync(path, 'utf8'),
): string | undefined {
  let setting: string;
  try {
    setting = read(THP_SETTING);
  } catch {
    return undefined;
  }
  if (selectedHugePageMode(setting) !== 'never') return undefined;
  return (
    'transparent huge pages are off on this host (never): every password hash and check costs about 1.5× ' +
    'the CPU it costs with them (madvise); see docs/DEPLOY.md, "Sizing"'
  );
}
