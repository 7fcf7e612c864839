import { type ChildProcess, fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { OverloadedError, ServiceUnavailableError } from '../errors.js';
import { holdProcessOpen, killAndWait } from './child-processes.js';

/**
 * The child's script. This module runs from src/lib (tests) and dist/lib (the built service); both are two
 * levels below the package root, so one relative path finds the script from either.
 */
const WORKER_SCRIPT = fileURLToPath(new URL('../../src/lib/hashing-worker.mjs', import.meta.url));

export interface HashingPoolOptions {
  /** Child processes hashing at once, one hash each (HASH_WORKERS; default one per core). */
  workers: number;
  /** Calls waiting for a free child; one more is shed at once with a 503 (HASH_QUEUE_LIMIT). */
  queueLimit: number;
  /** A call not answered within this long (waiting included) fails with a 503; a running child is killed. */
  timeoutMs: number;
}

export interface HashCost {
  memoryKib: number;
  timeCost: number;
  parallelism: number;
}

type Message =
  | { id: number; op: 'hash'; password: string; cost: HashCost }
  | { id: number; op: 'verify'; password: string; storedHash: string };

interface Job {
  message: Message;
  resolve(value: string | boolean): void;
  reject(error: unknown): void;
  timer: NodeJS.Timeout;
  slot: Slot | undefined;
}

interface Reply {
  id: number;
  ok: boolean;
  result?: string | boolean;
  message?: string;
}

/** One child and the job it is running, if any. */
interface Slot {
  child: ChildProcess;
  job: Job | undefined;
}

/**
 * A bounded pool of argon2 processes at a lower CPU priority than the API (hashing-worker.mjs): at most
 * `workers` hashes at once, at most `queueLimit` waiting (load shedding: the next gets a 503 at once instead
 * of a queue that grows until every request times out), each call bounded in time. Children start on first
 * use and are unref'd while idle, so an idle pool never holds the process open.
 */
export class HashingPool {
  private readonly slots: Slot[] = [];
  private readonly waiting: Job[] = [];
  private nextId = 1;
  private closed = false;

  constructor(private readonly options: HashingPoolOptions) {}

  hash(password: string, cost: HashCost): Promise<string> {
    return this.run({ id: this.nextId++, op: 'hash', password, cost }) as Promise<string>;
  }

  verify(storedHash: string, password: string): Promise<boolean> {
    return this.run({ id: this.nextId++, op: 'verify', password, storedHash }) as Promise<boolean>;
  }

  /** The pids of the running children (for tests and operators: `ps -o pid,ni`). */
  workerPids(): number[] {
    return this.slots.flatMap((slot) => (slot.child.pid === undefined ? [] : [slot.child.pid]));
  }

  /** Stops every child; calls in flight or waiting fail with a 503. */
  async close(): Promise<void> {
    this.closed = true;
    for (const job of this.waiting.splice(0))
      this.fail(job, new ServiceUnavailableError(new Error('closing')));
    // A copy: stop() takes each slot out of `slots` itself (and fails the call it was running).
    const closing = new ServiceUnavailableError(new Error('hashing pool closed'));
    await Promise.all([...this.slots].map((slot) => this.stop(slot, closing)));
  }

  private run(message: Message): Promise<string | boolean> {
    if (this.closed) return Promise.reject(new ServiceUnavailableError(new Error('hashing pool closed')));
    const idle = this.idleSlot();
    if (!idle && this.waiting.length >= this.options.queueLimit) {
      return Promise.reject(new OverloadedError('password hashing queue is full'));
    }
    return new Promise((resolve, reject) => {
      const job: Job = { message, resolve, reject, slot: undefined, timer: undefined as never };
      job.timer = setTimeout(() => this.timeOut(job), this.options.timeoutMs);
      if (idle) this.start(idle, job);
      else this.waiting.push(job);
    });
  }

  private timeOut(job: Job): void {
    const error = new ServiceUnavailableError(new Error('password hashing timed out'));
    if (job.slot) {
      void this.stop(job.slot, error);
      return;
    }
    const index = this.waiting.indexOf(job);
    if (index !== -1) this.waiting.splice(index, 1);
    this.fail(job, error);
  }

  private fail(job: Job, error: unknown): void {
    clearTimeout(job.timer);
    job.reject(error);
  }

  private idleSlot(): Slot | undefined {
    const idle = this.slots.find((slot) => slot.job === undefined);
    if (idle) return idle;
    if (this.slots.length >= this.options.workers) return undefined;
    const slot: Slot = { child: this.spawn(), job: undefined };
    this.slots.push(slot);
    slot.child.on('message', (reply: Reply) => this.finish(slot, reply));
    // A crash fails its call with a 503; the next call gets a fresh child.
    const lost = () => this.remove(slot, new ServiceUnavailableError(new Error('hashing process exited')));
    slot.child.on('exit', lost);
    slot.child.on('error', lost);
    return slot;
  }

  private spawn(): ChildProcess {
    const child = fork(WORKER_SCRIPT, [], {
      // Nothing of ours in the child's environment (no DATABASE_URL, no secrets): it only hashes.
      env: { PATH: process.env.PATH ?? '', UV_THREADPOOL_SIZE: '1' },
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    });
    holdProcessOpen(child, false);
    return child;
  }

  private start(slot: Slot, job: Job): void {
    slot.job = job;
    job.slot = slot;
    holdProcessOpen(slot.child, true);
    slot.child.send(job.message, (error) => {
      if (error) void this.stop(slot, new ServiceUnavailableError(error));
    });
  }

  private finish(slot: Slot, reply: Reply): void {
    const job = slot.job;
    if (!job || reply.id !== job.message.id) return;
    this.release(slot);
    clearTimeout(job.timer);
    if (reply.ok && reply.result !== undefined) job.resolve(reply.result);
    else job.reject(new Error(`password hashing failed: ${reply.message ?? 'unknown error'}`));
    this.next(slot);
  }

  private release(slot: Slot): void {
    if (slot.job) slot.job.slot = undefined;
    slot.job = undefined;
    holdProcessOpen(slot.child, false);
  }

  private next(slot: Slot): void {
    const job = this.waiting.shift();
    if (job) this.start(slot, job);
  }

  /** Kills the child (its call is abandoned with `error`); a waiting call gets a fresh child. */
  private async stop(slot: Slot, error: unknown): Promise<void> {
    this.remove(slot, error);
    await killAndWait(slot.child);
  }

  private remove(slot: Slot, error: unknown): void {
    const index = this.slots.indexOf(slot);
    if (index === -1) return;
    this.slots.splice(index, 1);
    const job = slot.job;
    this.release(slot);
    if (job) this.fail(job, error);
    if (this.closed) return;
    const waiting = this.waiting.shift();
    if (!waiting) return;
    const fresh = this.idleSlot();
    if (fresh) this.start(fresh, waiting);
    else this.waiting.unshift(waiting);
  }
}
