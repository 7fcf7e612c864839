import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Worker } from 'node:worker_threads';

/** The worker's script: two levels below the package root from src/db (tests) and dist/db (the service). */
const WORKER_SCRIPT = fileURLToPath(new URL('../../src/db/pglite-worker.mjs', import.meta.url));
/** The first start's initdb, run as a process of its own (pglite-initdb.mjs says why). */
const INITDB_SCRIPT = fileURLToPath(new URL('../../src/db/pglite-initdb.mjs', import.meta.url));

/**
 * Creates the database files of a data directory that has none, in a short-lived process: initdb's ~0.9 GB
 * peak of WebAssembly memory ends with it instead of staying in this one. An in-memory database has no
 * files to share with another process; its thread runs initdb itself.
 */
async function initDataDir(dir: string): Promise<void> {
  if (dir.startsWith('memory://') || existsSync(path.join(dir, 'PG_VERSION'))) return;
  try {
    await promisify(execFile)(process.execPath, [INITDB_SCRIPT, dir], {
      env: { PATH: process.env.PATH ?? '' },
    });
  } catch (error) {
    const stderr = (error as { stderr?: string }).stderr?.trim();
    throw new Error(`the embedded database could not be created in ${dir}${stderr ? `: ${stderr}` : ''}`);
  }
}

/** What one statement returns, as PGlite's `query` gives it. */
export interface EmbeddedResult<R> {
  rows: R[];
  affectedRows?: number;
  command?: string;
}

interface Reply {
  id: number;
  ok: boolean;
  result?: EmbeddedResult<unknown>;
  error?: Record<string, unknown>;
}

interface Pending {
  resolve(result: EmbeddedResult<unknown> | undefined): void;
  reject(error: Error): void;
}

/** The error the other thread described, with the fields db/errors.ts classifies by (`code`, `constraint`). */
function rebuild(described: Record<string, unknown> | undefined): Error {
  const error = new Error(String(described?.message ?? 'embedded database error'));
  Object.assign(error, described);
  return error;
}

/**
 * The embedded PostgreSQL (PGlite) on a worker thread of its own (pglite-worker.mjs): statements run beside
 * the event loop instead of on it. Same calls as PGlite's `query`, `exec` and `close`. The thread keeps the
 * process alive only while a statement is in flight.
 */
export class PGliteThread {
  readonly #worker: Worker;
  readonly #pending = new Map<number, Pending>();
  #nextId = 1;
  #exited: Error | undefined;

  private constructor(worker: Worker) {
    this.#worker = worker;
    worker.on('message', (reply: Reply) => this.#answer(reply));
    const lost = (error?: Error) => {
      // Matched by db/errors.ts as a lost connection: a 503, not a fault of the request.
      this.#exited = new Error(
        `Connection terminated: the embedded database thread exited${error ? ` (${error.message})` : ''}`,
      );
      for (const pending of this.#pending.values()) pending.reject(this.#exited);
      this.#pending.clear();
    };
    worker.on('error', lost);
    worker.on('exit', () => lost());
  }

  /** Starts the thread and opens the database in `dir` (a data directory, or `memory://`). */
  static async open(dir: string): Promise<PGliteThread> {
    await initDataDir(dir);
    const worker = new Worker(WORKER_SCRIPT, { workerData: { dir } });
    const exited = (code: number) => new Error(`the embedded database thread exited with ${code}`);
    let settle: { onMessage(reply: Reply): void; onError(error: Error): void; onExit(code: number): void };
    const opened = await new Promise<Reply>((resolve, reject) => {
      settle = { onMessage: resolve, onError: reject, onExit: (code) => reject(exited(code)) };
      worker.once('message', settle.onMessage);
      worker.once('error', settle.onError);
      worker.once('exit', settle.onExit);
    }).finally(() => {
      // The thread's own listeners take over from here (the constructor's).
      worker.off('message', settle.onMessage);
      worker.off('error', settle.onError);
      worker.off('exit', settle.onExit);
    });
    if (!opened.ok) {
      await worker.terminate();
      throw rebuild(opened.error);
    }
    const thread = new PGliteThread(worker);
    worker.unref();
    return thread;
  }

  /**
   * Runs `sql`; given a `name`, as a named statement, prepared on the first call and planned only then
   * (pglite-worker.mjs). The name must always come with the same SQL.
   */
  async query<R>(sql: string, params: unknown[] = [], name?: string): Promise<EmbeddedResult<R>> {
    return (await this.#send({ op: 'query', sql, params, name })) as EmbeddedResult<R>;
  }

  /** Statements sent to the thread and not answered yet. */
  get inFlight(): number {
    return this.#pending.size;
  }

  async exec(sql: string): Promise<void> {
    await this.#send({ op: 'exec', sql });
  }

  /** Closes the database (a clean shutdown of its files), then ends the thread. */
  async close(): Promise<void> {
    if (this.#exited) return;
    await this.#send({ op: 'close' });
    await this.#worker.terminate();
  }

  #send(
    message:
      | { op: 'query'; sql: string; params: unknown[]; name?: string }
      | { op: 'exec'; sql: string }
      | { op: 'close' },
  ) {
    if (this.#exited) return Promise.reject(this.#exited);
    const id = this.#nextId++;
    return new Promise<EmbeddedResult<unknown> | undefined>((resolve, reject) => {
      if (this.#pending.size === 0) this.#worker.ref();
      this.#pending.set(id, { resolve, reject });
      this.#worker.postMessage({ id, ...message });
    });
  }

  #answer(reply: Reply): void {
    const pending = this.#pending.get(reply.id);
    if (!pending) return;
    this.#pending.delete(reply.id);
    if (this.#pending.size === 0) this.#worker.unref();
    if (reply.ok) pending.resolve(reply.result);
    else pending.reject(rebuild(reply.error));
  }
}
