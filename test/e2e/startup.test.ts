import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backends } from '../helpers/database.js';
import { parseExposition, total } from '../helpers/metrics.js';
import { runCli, startService } from '../helpers/process.js';
import { olderEmbeddedDatabase } from '../helpers/process-store.js';

let scratch: string;

beforeAll(async () => {
  scratch = await mkdtemp(path.join(tmpdir(), 'accounts-startup-'));
}, 600_000);
afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});

/** The JSON log lines a process wrote. */
function logLines(output: string): Array<{ msg: string } & Record<string, unknown>> {
  return output
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as { msg: string });
}

describe('accounts serve start-up log', () => {
  it('logs the bound address once, the applied migrations, and serves /metrics only on METRICS_PORT', async () => {
    const dataDir = path.join(scratch, 'listen');
    // An older build's database, so the start has a migration to apply and log (a new DATA_DIR has none).
    const missing = await olderEmbeddedDatabase(dataDir);
    const service = await startService({
      HOST: '0.0.0.0',
      DATA_DIR: dataDir,
      METRICS_PORT: '0',
      ARGON2_MEMORY_KIB: '1024',
      ARGON2_TIME_COST: '1',
    });
    try {
      const lines = logLines(service.output());
      const listening = lines.filter((line) => /listening/i.test(line.msg));
      const main = listening.filter((line) => line.msg.startsWith('accounts listening on '));
      expect(main).toHaveLength(1);
      expect(main[0]?.msg).toMatch(/^accounts listening on http:\/\/0\.0\.0\.0:\d+$/);
      // Besides it, only the metrics port's line: no "Server listening at" per network interface.
      expect(listening.map((line) => line.msg.replace(/\d+/g, 'N'))).toEqual([
        'metrics listening on http://N.N.N.N:N/metrics',
        'accounts listening on http://N.N.N.N:N',
      ]);
      const applied = lines.find((line) => line.msg.startsWith('applied migrations: '));
      expect(applied?.applied).toEqual(missing);
      expect(applied?.msg).toBe(`applied migrations: ${missing.join(', ')}`);

      const port = service.url.split(':').at(-1);
      const metricsUrl = String(listening[0]?.address).replace('0.0.0.0', '127.0.0.1');
      const onMain = await fetch(`http://127.0.0.1:${port}/metrics`);
      expect(onMain.status).toBe(404);
      expect(await onMain.json()).toMatchObject({ meta: { code: 404, error_type: 'NotFoundHttpException' } });
      const scrape = await fetch(`${metricsUrl}/metrics`);
      expect(scrape.status).toBe(200);
      const samples = parseExposition(await scrape.text());
      expect(total(samples, 'http_requests_total', { route: 'unmatched', status: '404' })).toBe(1);
      expect((await fetch(`${metricsUrl}/v1/user/get`)).status).toBe(404);
    } finally {
      expect(await service.stop()).toBe(0);
    }
  }, 180_000);
});

/** Runs `accounts <command>` and expects exit 1 with exactly one line on stderr. */
async function failsWithOneLine(command: string, env: Record<string, string>): Promise<string> {
  const result = await runCli([command], env);
  expect(result.code).toBe(1);
  expect(result.stderr.split('\n').filter((line) => line !== '')).toHaveLength(1);
  expect(result.stderr).not.toMatch(/\n\s+at /);
  return result.stderr.trim();
}

describe('start-up failures are one line naming the variable', () => {
  it.each(['/proc/accounts', '/sys/accounts', '/dev/accounts'])(
    'refuses DATA_DIR=%s at once',
    async (dir) => {
      const line = await failsWithOneLine('serve', { DATA_DIR: dir, PORT: '0' });
      expect(line).toBe(
        `Cannot start: DATA_DIR (${dir}) is under /${dir.split('/')[1]}, a kernel file system, not storage`,
      );
    },
  );

  it('refuses a DATA_DIR that is a regular file', async () => {
    const file = path.join(scratch, 'a-file');
    await writeFile(file, 'not a directory');
    expect(await failsWithOneLine('serve', { DATA_DIR: file, PORT: '0' })).toBe(
      `Cannot start: DATA_DIR (${file}) is a regular file, not a directory`,
    );
  });

  it('refuses a DATA_DIR below a regular file', async () => {
    const file = path.join(scratch, 'another-file');
    await writeFile(file, 'not a directory');
    expect(await failsWithOneLine('migrate', { DATA_DIR: path.join(file, 'data') })).toBe(
      `Cannot start: DATA_DIR (${path.join(file, 'data')}) has a regular file where a directory should be (ENOTDIR)`,
    );
  });

  it("refuses an IP address as the passkeys' relying party", async () => {
    expect(await failsWithOneLine('serve', { WEBAUTHN_RP_ID: '127.0.0.1', PORT: '0' })).toBe(
      'Invalid configuration: WEBAUTHN_RP_ID is an IP address ("127.0.0.1"), but browsers make passkeys only ' +
        'for a domain name: set a domain such as localhost or example.com, and serve the pages there',
    );
  });

  it.each(['serve', 'migrate'])('names DATABASE_URL when nothing listens there (%s)', async (command) => {
    const line = await failsWithOneLine(command, {
      DATABASE_URL: 'postgres://postgres:secret-pw@127.0.0.1:1/postgres',
      DATA_DIR: path.join(scratch, 'refused'),
      PORT: '0',
    });
    expect(line).toBe(
      'Cannot start: DATABASE_URL is unreachable: ECONNREFUSED at 127.0.0.1:1 (is PostgreSQL running there?)',
    );
  });
});

describe.each(backends.filter((backend) => backend === 'postgres'))('%s: a server that refuses us', () => {
  const server = () => new URL(process.env.DATABASE_URL as string);

  it('names DATABASE_URL when its role does not exist', async () => {
    const url = server();
    const role = `nobody_${randomBytes(4).toString('hex')}`;
    url.username = role;
    const line = await failsWithOneLine('migrate', { DATABASE_URL: url.toString() });
    expect(line).toMatch(
      new RegExp(
        `^Cannot start: DATABASE_URL names a role the server does not accept: .*"${role}".* \\(28000\\)$`,
      ),
    );
  });

  it('names DATABASE_URL when its database does not exist', async () => {
    const url = server();
    const name = `missing_${randomBytes(4).toString('hex')}`;
    url.pathname = `/${name}`;
    const line = await failsWithOneLine('serve', { DATABASE_URL: url.toString(), PORT: '0' });
    expect(line).toBe(
      `Cannot start: DATABASE_URL names a database that does not exist: database "${name}" does not exist (3D000)`,
    );
  });
});
