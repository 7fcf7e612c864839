import { type ChildProcess, fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { ServiceUnavailableError } from '../../errors.js';
import { holdProcessOpen, killAndWait } from '../../lib/child-processes.js';

/**
 * The child's script. This module runs from src/modules/images (tests) and dist/modules/images (the built
 * service); both are three levels below the package root, so one relative path finds the script from either.
 */
const WORKER_SCRIPT = fileURLToPath(
  new URL('../../../src/modules/images/render-worker.mjs', import.meta.url),
);

export interface RenderPoolOptions {
  /** Child processes rendering at once (each renders one image at a time). */
  workers: number;
  /** Renders waiting for a free child; one more is refused at once (503) instead of queueing memory. */
  queueLimit: number;
  /** A render that takes longer is cut off: its child is killed, the request gets a 503. */
  timeoutMs: number;
  /** The V8 heap limit of each child; image pixels live outside it, bounded by the pixel limits. */
  heapMb: number;
}

/** A render the child refused (corrupt or truncated data): for the client, not an image. */
export class RenderRefusedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RenderRefusedError';
  }
}

interface Job {
  message: { id: number; source: unknown; maxPixels: number };
  resolve(value: { renditions: unknown; pid: number }): void;
  reject(error: unknown): void;
}

interface Reply {
  id: number;
  ok: boolean;
  renditions?: unknown;
  message?: string;
  pid: number;
}

/** One child and the job it is running, if any. */
interface Slot {
  child: ChildProcess;
  job: Job | undefined;
  timer: NodeJS.Timeout | undefined;
}

/**
 * A bounded pool of renderer processes: at most `workers` images decode at once, at most `queueLimit` wait,
 * and each render is bounded in time. Children start on first use and are not kept alive for the pool's
 * sake (unref'd), so an idle pool never holds the process open.
 */
export class RenderPool {
  private readonly slots: Slot[] = [];
  private readonly waiting: Job[] = [];
  private nextId = 1;
  private closed = false;

  constructor(private readonly options: RenderPoolOptions) {}

  run(source: unknown, maxPixels: number): Promise<{ renditions: unknown; pid: number }> {
    if (this.closed) return Promise.reject(new ServiceUnavailableError(new Error('image pool closed')));
    const idle = this.idleSlot();
    if (!idle && this.waiting.length >= this.options.queueLimit) {
      return Promise.reject(new ServiceUnavailableError(new Error('image render queue is full')));
    }
    return new Promise((resolve, reject) => {
      const job: Job = { message: { id: this.nextId++, source, maxPixels }, resolve, reject };
      if (idle) this.start(idle, job);
      else this.waiting.push(job);
    });
  }

  /** Stops every child; renders in flight or waiting fail with a 503. */
  async close(): Promise<void> {
    this.closed = true;
    for (const job of this.waiting.splice(0)) job.reject(new ServiceUnavailableError(new Error('closing')));
    // A copy: stop() takes each slot out itself, and only a slot still listed gets its render failed.
    const closing = new ServiceUnavailableError(new Error('image pool closed'));
    await Promise.all([...this.slots].map((slot) => this.stop(slot, closing)));
  }

  private idleSlot(): Slot | undefined {
    const idle = this.slots.find((slot) => slot.job === undefined);
    if (idle) return idle;
    if (this.slots.length >= this.options.workers) return undefined;
    const slot: Slot = { child: this.spawn(), job: undefined, timer: undefined };
    this.slots.push(slot);
    slot.child.on('message', (reply: Reply) => this.finish(slot, reply));
    // A crash (out of memory, a libvips abort) fails its render; the next render gets a fresh child.
    slot.child.on('exit', () => this.remove(slot, new RenderRefusedError('renderer exited')));
    slot.child.on('error', () => this.remove(slot, new RenderRefusedError('renderer failed')));
    return slot;
  }

  private spawn(): ChildProcess {
    const child = fork(WORKER_SCRIPT, [], {
      // v8 serialisation carries the image bytes as binary, not as a JSON array of numbers.
      serialization: 'advanced',
      execArgv: [`--max-old-space-size=${this.options.heapMb}`],
      // Nothing of ours but what libvips reads: no DATABASE_URL, no secrets in the child's environment.
      env: { PATH: process.env.PATH ?? '', UV_THREADPOOL_SIZE: '2', VIPS_CONCURRENCY: '1' },
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    });
    holdProcessOpen(child, false);
    return child;
  }

  private start(slot: Slot, job: Job): void {
    slot.job = job;
    holdProcessOpen(slot.child, true);
    slot.timer = setTimeout(() => {
      void this.stop(slot, new ServiceUnavailableError(new Error('image render timed out')));
    }, this.options.timeoutMs);
    slot.child.send(job.message, (error) => {
      if (error) void this.stop(slot, new ServiceUnavailableError(error));
    });
  }

  private finish(slot: Slot, reply: Reply): void {
    const job = slot.job;
    if (!job || reply.id !== job.message.id) return;
    this.release(slot);
    if (reply.ok) job.resolve({ renditions: reply.renditions, pid: reply.pid });
    else job.reject(new RenderRefusedError(reply.message ?? 'render failed'));
    this.next(slot);
  }

  private release(slot: Slot): void {
    clearTimeout(slot.timer);
    slot.timer = undefined;
    slot.job = undefined;
    holdProcessOpen(slot.child, false);
  }

  private next(slot: Slot): void {
    const job = this.waiting.shift();
    if (job) this.start(slot, job);
  }

  /** Kills the child (its render is abandoned with `error`); a waiting render gets a fresh child. */
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
    job?.reject(error);
    const waiting = this.waiting.shift();
    if (!waiting) return;
    const fresh = this.idleSlot();
    if (fresh) this.start(fresh, waiting);
    else this.waiting.unshift(waiting);
  }
}
