import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { appendFile, chown, mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';

const run = promisify(execFile);

/** Debian's PostgreSQL 15 server binaries (apt-get install postgresql-15); POSTGRES_BIN points elsewhere. */
export const POSTGRES_BIN = process.env.POSTGRES_BIN ?? '/usr/lib/postgresql/15/bin';

/** Whether the streaming-replication suite can run. Without the binaries it skips, except in CI, where it fails. */
export const postgresBinariesInstalled = ['initdb', 'pg_ctl', 'pg_basebackup'].every((tool) =>
  existsSync(path.join(POSTGRES_BIN, tool)),
);

export const POSTGRES_BINARIES_MISSING = `PostgreSQL server binaries not found in ${POSTGRES_BIN}: the read-replica suite starts its own primary and hot standby with them (apt-get install postgresql-15, or set POSTGRES_BIN)`;

/** PostgreSQL refuses to run as root: as root, every server command runs as the `postgres` user. */
const asRoot = process.getuid?.() === 0;

async function pgTool(tool: string, args: string[]): Promise<void> {
  const binary = path.join(POSTGRES_BIN, tool);
  const [command, commandArgs] = asRoot
    ? ['runuser', ['-u', 'postgres', '--', binary, ...args]]
    : [binary, args];
  await run(command, commandArgs, { timeout: 120_000 });
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function postgresIds(): Promise<{ uid: number; gid: number }> {
  const uid = Number((await run('id', ['-u', 'postgres'])).stdout.trim());
  const gid = Number((await run('id', ['-g', 'postgres'])).stdout.trim());
  return { uid, gid };
}

/**
 * A private primary and a hot standby streaming from it (a replication slot keeps the WAL it needs),
 * each on a free port, in a temporary directory: the shared server on 5432 is never touched.
 */
export class StreamingPair {
  private constructor(
    private readonly dir: string,
    readonly primaryPort: number,
    readonly standbyPort: number,
  ) {}

  get primaryUrl(): string {
    return `postgres://postgres@127.0.0.1:${this.primaryPort}/postgres`;
  }

  get standbyUrl(): string {
    return `postgres://postgres@127.0.0.1:${this.standbyPort}/postgres`;
  }

  private get primaryDir(): string {
    return path.join(this.dir, 'primary');
  }

  private get standbyDir(): string {
    return path.join(this.dir, 'standby');
  }

  static async start(): Promise<StreamingPair> {
    const dir = await mkdtemp(path.join(tmpdir(), 'accounts-replica-'));
    if (asRoot) {
      const { uid, gid } = await postgresIds();
      await chown(dir, uid, gid);
    }
    const pair = new StreamingPair(dir, await freePort(), await freePort());
    try {
      await pair.startPrimary();
      await pgTool('pg_basebackup', [
        ...['-h', '127.0.0.1', '-p', String(pair.primaryPort), '-U', 'postgres'],
        ...['-D', pair.standbyDir, '-R', '-X', 'stream', '-c', 'fast', '-C', '-S', 'accounts_test'],
        '--no-sync',
      ]);
      // The copied configuration names the primary's port; the last setting of a file wins.
      await appendFile(path.join(pair.standbyDir, 'postgresql.conf'), `\nport = ${pair.standbyPort}\n`);
      await pair.startStandby();
    } catch (error) {
      await pair.stop();
      throw error;
    }
    return pair;
  }

  private async startPrimary(): Promise<void> {
    await pgTool('initdb', [
      '-D',
      this.primaryDir,
      '-U',
      'postgres',
      '-A',
      'trust',
      '--no-sync',
      '-E',
      'UTF8',
    ]);
    const settings = [
      `port = ${this.primaryPort}`,
      "listen_addresses = '127.0.0.1'",
      `unix_socket_directories = '${this.dir}'`,
      'wal_level = replica',
      'max_wal_senders = 4',
      'hot_standby = on',
      'fsync = off',
      'shared_buffers = 16MB',
      'max_connections = 60',
    ];
    await appendFile(path.join(this.primaryDir, 'postgresql.conf'), `\n${settings.join('\n')}\n`);
    await this.pgCtl(this.primaryDir, 'start');
  }

  /** Starts the standby (again, after `stopStandby`); returns once it accepts read-only connections. */
  startStandby(): Promise<void> {
    return this.pgCtl(this.standbyDir, 'start');
  }

  /** A fast shutdown: its connections are cut, new ones refused. */
  stopStandby(): Promise<void> {
    return this.pgCtl(this.standbyDir, 'stop');
  }

  private async pgCtl(dataDir: string, action: 'start' | 'stop'): Promise<void> {
    const log = path.join(this.dir, `${path.basename(dataDir)}.log`);
    const mode = action === 'stop' ? ['-m', 'fast'] : ['-l', log];
    await pgTool('pg_ctl', ['-D', dataDir, ...mode, '-w', '-t', '60', action]);
  }

  /** One statement on a server of the pair, on a connection of its own. */
  async query<R extends pg.QueryResultRow>(url: string, statement: string): Promise<R[]> {
    const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5_000 });
    await client.connect();
    try {
      return (await client.query<R>(statement)).rows;
    } finally {
      await client.end();
    }
  }

  /** Waits (bounded) until the standby has replayed everything the primary has written so far. */
  async caughtUp(): Promise<void> {
    const [{ lsn } = { lsn: '' }] = await this.query<{ lsn: string }>(
      this.primaryUrl,
      'SELECT pg_current_wal_lsn()::text AS lsn',
    );
    for (let attempt = 0; attempt < 200; attempt++) {
      const [row] = await this.query<{ done: boolean }>(
        this.standbyUrl,
        `SELECT pg_last_wal_replay_lsn() >= '${lsn}'::pg_lsn AS done`,
      );
      if (row?.done) return;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error(`the standby did not replay up to ${lsn} within 10 s`);
  }

  /** Stops both servers (immediately: nothing of them is kept) and removes their files. */
  async stop(): Promise<void> {
    for (const dataDir of [this.standbyDir, this.primaryDir]) {
      if (!existsSync(path.join(dataDir, 'postmaster.pid'))) continue;
      await pgTool('pg_ctl', ['-D', dataDir, '-m', 'immediate', '-w', 'stop']).catch(() => {});
    }
    await rm(this.dir, { recursive: true, force: true });
  }
}
