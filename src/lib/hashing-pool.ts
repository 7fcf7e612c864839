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

/** One child and its calls: the first is hashing, the one behind it was handed over in advance. */
interface Slot {
  child: ChildProcess;
  jobs: Job[];
}

/**
 * Calls a child holds at once: the one it hashes and the next, handed over before the first is done. The
 * child, which hashes on its one thread (hashing-worker.mjs), starts the next hash the moment it has sent the
 * last reply, instead of idling for that reply to reach this process and the next call to come back
 * (measured: 2.5–4.5 % of both cores idle under a login flood without it). Still one hash at a time per child.
 * bench/issue9.ts keeps a copy (SERVICE_CALLS_PER_HASHING_PROCESS) for its raw argon2 information rows.
 */
const CALLS_PER_CHILD = 2;

/**
 * A bounded pool of argon2 processes at a lower CPU priority than the API (hashing-worker.mjs): at most
 * `workers` hashes at once, at most `queueLimit` waiting (load shedding: the next gets a 503 at once instead
 * of a queue that grows until every request times out), each call bounded in time. A waiting call may be
 * handed to a busy child in advance (CALLS_PER_CHILD); it still counts as waiting. Children start on first
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
    // A copy: stop() takes each slot out of `slots` itself (and fails the calls it held).
    const closing = new ServiceUnavailableError(new Error('hashing pool closed'));
    await Promise.all([...this.slots].map((slot) => this.stop(slot, closing)));
  }

  private run(message: Message): Promise<string | boolean> {
    if (this.closed) return Promise.reject(new ServiceUnavailableError(new Error('hashing pool closed')));
    if (!this.canStartNow() && this.waitingCount() >= this.options.queueLimit) {
      return Promise.reject(new OverloadedError('password hashing queue is full'));
    }
    return new Promise((resolve, reject) => {
      const job: Job = {
        message,
        resolve,
        reject,
        slot: undefined,
        timer: undefined as never,
      };
      job.timer = setTimeout(() => this.timeOut(job), this.options.timeoutMs);
      this.waiting.push(job);
      this.dispatch();
    });
  }

  /** An idle child, or room for one more. */
  private canStartNow(): boolean {
    return this.slots.length < this.options.workers || this.slots.some((slot) => slot.jobs.length === 0);
  }

  /** Calls not hashing yet: in the queue, or handed to a busy child in advance. */
  private waitingCount(): number {
    let handedOver = 0;
    for (const slot of this.slots) handedOver += Math.max(0, slot.jobs.length - 1);
    return this.waiting.length + handedOver;
  }

  /** Hands waiting calls out: to idle children first, then to new ones, then in advance to busy ones. */
  private dispatch(): void {
    while (!this.closed && this.waiting.length > 0) {
      const slot = this.freeSlot();
      if (!slot) return;
      this.start(slot, this.waiting.shift() as Job);
    }
  }

  private freeSlot(): Slot | undefined {
    const idle = this.slots.find((slot) => slot.jobs.length === 0);
    if (idle) return idle;
    if (this.slots.length < this.options.workers) return this.spawnSlot();
    return this.slots.find((slot) => slot.jobs.length < CALLS_PER_CHILD);
  }

  private timeOut(job: Job): void {
    const error = new ServiceUnavailableError(new Error('password hashing timed out'));
    const slot = job.slot;
    if (slot && slot.jobs[0] === job) {
      // Hashing for too long: the child is stuck or starved; a fresh one takes the calls behind it.
      void this.stop(slot, error);
      return;
    }
    // Still waiting, in the queue or behind a child's hash: answered now. Taken out of the child's calls too,
    // so every call a slot holds has a live timer (its first one always bounds the child); the child's late
    // reply finds no call and is dropped.
    const queue = slot ? slot.jobs : this.waiting;
    const index = queue.indexOf(job);
    if (index !== -1) queue.splice(index, 1);
    job.slot = undefined;
    this.fail(job, error);
  }

  private fail(job: Job, error: unknown): void {
    clearTimeout(job.timer);
    job.reject(error);
  }

  private spawnSlot(): Slot {
    const slot: Slot = { child: this.spawn(), jobs: [] };
    this.slots.push(slot);
    slot.child.on('message', (reply: Reply) => this.finish(slot, reply));
    // A crash fails the call it was hashing with a 503; the calls behind it get a fresh child.
    const lost = () => this.remove(slot, new ServiceUnavailableError(new Error('hashing process exited')));
    slot.child.on('exit', lost);
    slot.child.on('error', lost);
    return slot;
  }

  private spawn(): ChildProcess {
    const child = fork(WORKER_SCRIPT, [], {
      // Nothing of ours in the child's environment (no DATABASE_URL, no secrets): it only hashes, on its
      // main thread, so libuv's threadpool is never started there.
      env: { PATH: process.env.PATH ?? '' },
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    });
    holdProcessOpen(child, false);
    return child;
  }

  private start(slot: Slot, job: Job): void {
    slot.jobs.push(job);
    job.slot = slot;
    holdProcessOpen(slot.child, true);
    slot.child.send(job.message, (error) => {
      if (error) void this.stop(slot, new ServiceUnavailableError(error));
    });
  }

  private finish(slot: Slot, reply: Reply): void {
    const index = slot.jobs.findIndex((job) => job.message.id === reply.id);
    if (index === -1) return;
    const [job] = slot.jobs.splice(index, 1) as [Job];
    job.slot = undefined;
    if (slot.jobs.length === 0) holdProcessOpen(slot.child, false);
    clearTimeout(job.timer);
    if (reply.ok && reply.result !== undefined) job.resolve(reply.result);
    else job.reject(new Error(`password hashing failed: ${reply.message ?? 'unknown error'}`));
    this.dispatch();
  }

  /** Kills the child (its calls are failed or requeued, see remove). */
  private async stop(slot: Slot, error: unknown): Promise<void> {
    this.remove(slot, error);
    await killAndWait(slot.child);
  }

  /**
   * Takes the slot out: the call it was hashing fails with `error`; the calls handed to it in advance go back
   * to the front of the queue, in order, for another child (or fail too when the pool is closing).
   */
  private remove(slot: Slot, error: unknown): void {
    const index = this.slots.indexOf(slot);
    if (index === -1) return;
    this.slots.splice(index, 1);
    const [hashing, ...behind] = slot.jobs.splice(0);
    holdProcessOpen(slot.child, false);
    if (hashing) {
      hashing.slot = undefined;
      this.fail(hashing, error);
    }
    for (const job of behind) job.slot = undefined;
    if (this.closed) {
      for (const job of behind) this.fail(job, error);
      return;
    }
    this.waiting.unshift(...behind);
    this.dispatch();
  }
}
