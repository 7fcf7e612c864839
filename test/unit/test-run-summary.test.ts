import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { skippedSummary } from '../helpers/global-setup.js';

describe('the skipped-suites line at the end of a test run', () => {
  let dir: string;
  let files: string[];

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'accounts-summary-'));
    const sources = {
      'a.test.ts': "import { backends } from '../helpers/database.js';\n",
      'b.test.ts': "import { type Backend, backends, createTestDatabase } from '../helpers/database.js';\n",
      'c.test.ts':
        "import { backends } from '../helpers/database.js';\nimport { stores } from '../helpers/redis.js';\n",
      'd.test.ts':
        "import { loadConfig } from '../../src/config.js';\n// backends and stores, only in words\n",
    };
    files = [];
    for (const [name, source] of Object.entries(sources)) {
      files.push(path.join(dir, name));
      await writeFile(path.join(dir, name), source);
    }
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('counts the files whose PostgreSQL and Redis suites were left out', () => {
    expect(skippedSummary(files, {})).toBe(
      '[accounts] SKIPPED the PostgreSQL suites of 3 test files (set DATABASE_URL) and the Redis suites of 1 test file (set REDIS_URL).',
    );
    expect(skippedSummary(files, { REDIS_URL: 'redis://127.0.0.1:6379' })).toBe(
      '[accounts] SKIPPED the PostgreSQL suites of 3 test files (set DATABASE_URL).',
    );
  });

  it('says nothing when every suite ran, or the run had none that needs a server', () => {
    expect(skippedSummary(files, { DATABASE_URL: 'postgres://x', REDIS_URL: 'redis://x' })).toBeUndefined();
    expect(skippedSummary(files.slice(3), {})).toBeUndefined();
  });

  it('counts the browser suites left out when Chromium is missing', async () => {
    const browserFile = path.join(dir, 'e.test.ts');
    await writeFile(
      browserFile,
      "import {\n  baseUrl,\n  chromiumInstalled,\n  launchChromium,\n} from '../helpers/browser.js';\n",
    );
    const ran = { DATABASE_URL: 'postgres://x', REDIS_URL: 'redis://x' };
    expect(skippedSummary([...files, browserFile], ran, false)).toBe(
      '[accounts] SKIPPED the browser suites of 1 test file (install chromium).',
    );
    expect(skippedSummary([...files, browserFile], ran, true)).toBeUndefined();
  });
});
