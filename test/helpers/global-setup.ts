/**
 * Says once, at the top of the run, which server-backed suites run. In CI (CI=true) a missing DATABASE_URL
 * or REDIS_URL is an error: the PostgreSQL and Redis suites are required there, never silently skipped.
 */
export default function setup(): void {
  const ci = process.env.CI === 'true';
  if (!process.env.DATABASE_URL) {
    if (ci) throw new Error('CI=true but DATABASE_URL is not set: the PostgreSQL suites are required in CI.');
    console.warn(
      '\n[accounts] DATABASE_URL is not set: PostgreSQL suites are SKIPPED (PGlite suites run).\n',
    );
  } else {
    console.warn(`\n[accounts] PostgreSQL suites run against ${redact(process.env.DATABASE_URL)}.\n`);
  }
  if (!process.env.REDIS_URL) {
    if (ci) throw new Error('CI=true but REDIS_URL is not set: the Redis suites are required in CI.');
    console.warn(
      '\n[accounts] REDIS_URL is not set: Redis suites are SKIPPED (in-process store suites run).\n',
    );
  } else {
    console.warn(`\n[accounts] Redis suites run against ${redact(process.env.REDIS_URL)}.\n`);
  }
}

function redact(url: string): string {
  return url.replace(/\/\/([^:@/]*):[^@/]*@/, '//$1:***@');
}
