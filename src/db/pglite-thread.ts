import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { copiedFromTemplate, createDataDir, ownSecrets } from './pglite-files.js';

/** The worker's script: two levels below the package root from src/db (tests) and dist/db (the service). */
const WORKER_SCRIPT = fileURLToPath(new URL('../../src/db/pglite-worker.mjs', import.meta.url));

/** What one statement returns, as PGlite's `query` gives it. */
export interface EmbeddedResult<R> {
  rows: R[];
  affectedRows?: number;
  command?: string;
}

interface Reply {
  /** Absent on a notification (`notify`), which answers no message. */
  id?: number;
  /** The channel a NOTIFY was sent on, when the thread passes one on. */
  notify?: string;
  ok: boolean;
  result?: unknown;
  error?: Record<string, unknown>;
}

interface Pending {
  resolve(result: unknown): void;
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
  /** Who hears each channel's notifications (listen). */
  readonly #listeners = new Map<string, { heard: Set<() => void>; listening: Promise<unknown> }>();

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

  /**
   * Starts the thread and opens the database in `dir` (a data directory, or `memory://`). A new database is
   * a copy of `template` when one is given (pglite-template.ts), and made by initdb otherwise.
   */
  static async open(dir: string, template?: string): Promise<PGliteThread> {
    await createDataDir(dir, template);
    // Only an in-memory database is loaded from the template by its thread; files are in place by now.
    const memoryTemplate = dir.startsWith('memory://') ? template : undefined;
    const worker = new Worker(WORKER_SCRIPT, { workerData: { dir, template: memoryTemplate } });
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
    if (copiedFromTemplate(dir, template)) {
      await ownSecrets(dir, (statement) => thread.exec(statement)).catch(async (error: unknown) => {
        await thread.close();
        throw error;
      });
    }
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

  /**
   * Calls `onNotify` on every NOTIFY on `channel` once this resolves: before the answer of the statement that
   * committed it, so a caller that committed a change has been told of it when its commit returns.
   */
  async listen(channel: string, onNotify: () => void): Promise<void> {
    let channelListeners = this.#listeners.get(channel);
    if (!channelListeners) {
      channelListeners = { heard: new Set(), listening: this.#send({ op: 'listen', channel }) };
      this.#listeners.set(channel, channelListeners);
    }
    channelListeners.heard.add(onNotify);
    await channelListeners.listening;
  }

  /** The whole data directory as a gzipped tarball, after a checkpoint (what `template` takes). */
  async dump(): Promise<Uint8Array> {
    const tarball = await this.#send({ op: 'dump' });
    if (!(tarball instanceof Uint8Array)) throw new Error('the embedded database thread sent no dump');
    return tarball;
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
      | { op: 'dump' }
      | { op: 'listen'; channel: string }
      | { op: 'close' },
  ) {
    if (this.#exited) return Promise.reject(this.#exited);
    const id = this.#nextId++;
    return new Promise<unknown>((resolve, reject) => {
      if (this.#pending.size === 0) this.#worker.ref();
      this.#pending.set(id, { resolve, reject });
      this.#worker.postMessage({ id, ...message });
    });
  }

  #answer(reply: Reply): void {
    if (reply.notify !== undefined) {
      for (const onNotify of this.#listeners.get(reply.notify)?.heard ?? []) onNotify();
      return;
    }
    if (reply.id === undefined) return;
    const pending = this.#pending.get(reply.id);
    if (!pending) return;
    this.#pending.delete(reply.id);
    if (this.#pending.size === 0) this.#worker.unref();
    if (reply.ok) pending.resolve(reply.result);
    else pending.reject(rebuild(reply.error));
  }
}
