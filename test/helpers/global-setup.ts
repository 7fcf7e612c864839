import { existsSync, readFileSync } from 'node:fs';
import type { TestProject } from 'vitest/node';
import { buildDistOnce } from './build-dist.js';
import { createPostgresTemplate } from './database-template.js';

/**
 * Says once, at the top of the run, which server-backed suites run, and again at the end how many were
 * skipped (the note at the top scrolls away). In CI (CI=true) a missing DATABASE_URL or REDIS_URL is an
 * error: the PostgreSQL and Redis suites are required there, never silently skipped.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const ci = process.env.CI === 'true';
  const missing = [
    process.env.DATABASE_URL ? undefined : 'DATABASE_URL',
    process.env.REDIS_URL ? undefined : 'REDIS_URL',
  ].filter((name) => name !== undefined);
  if (ci && missing.length > 0) {
    // One line and a non-zero exit: thrown from here, vitest would bury it under "No test files found" and a
    // stack trace.
    console.error(
      `\n[accounts] CI=true but ${missing.join(' and ')} ${missing.length > 1 ? 'are' : 'is'} not set: ` +
        'the PostgreSQL and Redis suites are required in CI (see .ci/run).\n',
    );
    process.exit(1);
  }
  if (!process.env.DATABASE_URL) {
    console.warn(
      '\n[accounts] DATABASE_URL is not set: PostgreSQL suites are SKIPPED (PGlite suites run).\n',
    );
  } else {
    console.warn(`\n[accounts] PostgreSQL suites run against ${redact(process.env.DATABASE_URL)}.\n`);
  }
  if (!process.env.REDIS_URL) {
    console.warn(
      '\n[accounts] REDIS_URL is not set: Redis suites are SKIPPED (in-process store suites run).\n',
    );
  } else {
    console.warn(`\n[accounts] Redis suites run against ${redact(process.env.REDIS_URL)}.\n`);
  }
  if (!chromiumPresent()) {
    console.warn(
      `\n[accounts] Chromium not found at ${chromiumPath()}: browser suites are SKIPPED` +
        `${ci ? ' (with CI=true they FAIL instead)' : ''} (apt-get install chromium fonts-noto-cjk).\n`,
    );
  }
  const postgresBin = process.env.POSTGRES_BIN ?? '/usr/lib/postgresql/15/bin';
  if (!existsSync(`${postgresBin}/pg_basebackup`)) {
    console.warn(
      `\n[accounts] PostgreSQL server binaries not found in ${postgresBin}: the read-replica suite is SKIPPED` +
        `${ci ? ' (with CI=true it FAILS instead)' : ''} (apt-get install postgresql-15, or set POSTGRES_BIN).\n`,
    );
  }
  // Once for the whole run, before any file starts: dist/ (and with it the embedded database's migrated
  // template), and the migrated PostgreSQL database every test database is copied from.
  const started = Date.now();
  const build = await buildDistOnce();
  const postgres = process.env.DATABASE_URL ? await createPostgresTemplate() : undefined;
  project.provide('postgresTemplate', postgres?.name ?? '');
  console.warn(
    `\n[accounts] dist/ ${build === 'fresh' ? 'is up to date' : 'built'}` +
      `${postgres ? `, PostgreSQL template ${postgres.name} migrated` : ''} in ${Date.now() - started} ms.\n`,
  );
  return async () => {
    await postgres?.drop();
    const summary = skippedSummary(project.vitest.state.getFiles().map((file) => file.filepath));
    if (summary) console.warn(`\n${summary}\n`);
  };
}

/**
 * The files of this run whose server-backed suites were left out: those that take their backends from
 * `helpers/database.ts` (PostgreSQL runs only with DATABASE_URL) or their stores from `helpers/redis.ts`
 * (Redis runs only with REDIS_URL). Counted from the sources, since a suite that was never declared leaves
 * no trace in the results.
 */
export function skippedSummary(
  files: string[],
  env: NodeJS.ProcessEnv = process.env,
  chromium: boolean = chromiumPresent(env),
): string | undefined {
  const uses = (pattern: RegExp) => files.filter((file) => pattern.test(readFileSync(file, 'utf8'))).length;
  const parts: string[] = [];
  if (!env.DATABASE_URL) {
    const count = uses(/^import \{[^}]*\bbackends\b[^}]*\} from '\.\.\/helpers\/database\.js'/m);
    if (count > 0)
      parts.push(`the PostgreSQL suites of ${count} test file${count === 1 ? '' : 's'} (set DATABASE_URL)`);
  }
  if (!env.REDIS_URL) {
    const count = uses(/^import \{[^}]*\bstores\b[^}]*\} from '\.\.\/helpers\/redis\.js'/m);
    if (count > 0)
      parts.push(`the Redis suites of ${count} test file${count === 1 ? '' : 's'} (set REDIS_URL)`);
  }
  if (!chromium) {
    const count = uses(/^import \{[^}]*\bchromiumInstalled\b[^}]*\} from '\.\.\/helpers\/browser\.js'/m);
    if (count > 0)
      parts.push(`the browser suites of ${count} test file${count === 1 ? '' : 's'} (install chromium)`);
  }
  return parts.length === 0 ? undefined : `[accounts] SKIPPED ${parts.join(' and ')}.`;
}

/** Where test/helpers/browser.ts looks for Chromium (kept here so the setup does not load playwright). */
function chromiumPath(env: NodeJS.ProcessEnv = process.env): string {
  return env.CHROMIUM_PATH ?? '/usr/bin/chromium';
}

function chromiumPresent(env: NodeJS.ProcessEnv = process.env): boolean {
  return existsSync(chromiumPath(env));
}

function redact(url: string): string {
  return url.replace(/\/\/([^:@/]*):[^@/]*@/, '//$1:***@');
}
