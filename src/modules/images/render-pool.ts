import { fileURLToPath } from 'node:url';
import { OverloadedError, ServiceUnavailableError } from '../../errors.js';
import { ChildPool } from '../../lib/child-pool.js';
import { forkChild } from '../../lib/pool-children.js';

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
  /** Renders waiting for a free child; one more is refused at once (503, Retry-After) instead of queueing memory. */
  queueLimit: number;
  /** A render that takes longer is cut off: its child is killed, the request gets a 503 with Retry-After. */
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

/** A render as render-worker.mjs reads it (the pool adds its id). */
interface RenderJob {
  source: unknown;
  maxPixels: number;
}

interface RenderReply {
  id: number;
  ok: boolean;
  renditions?: unknown;
  message?: string;
  pid: number;
}

export interface RenderOutcome {
  renditions: unknown;
  /** The child that rendered (the isolation test checks it is never this process). */
  pid: number;
}

function answer(reply: RenderReply): RenderOutcome {
  if (reply.ok) return { renditions: reply.renditions, pid: reply.pid };
  throw new RenderRefusedError(reply.message ?? 'render failed');
}

/**
 * A bounded pool of renderer processes: at most `workers` images decode at once, one per child, at most
 * `queueLimit` wait, and each render is bounded in time from the moment a child starts it.
 */
export class RenderPool {
  private readonly pool: ChildPool<RenderJob, RenderOutcome, RenderReply>;

  constructor(options: RenderPoolOptions) {
    this.pool = new ChildPool({
      // A process, not a thread: a native decoder that crashes on a hostile image takes down only its child.
      start: () =>
        forkChild(WORKER_SCRIPT, {
          // v8 serialisation carries the image bytes as binary, not as a JSON array of numbers.
          serialization: 'advanced',
          execArgv: [`--max-old-space-size=${options.heapMb}`],
          // Nothing of ours but what libvips reads: no DATABASE_URL, no secrets in the child's environment.
          env: { PATH: process.env.PATH ?? '', UV_THREADPOOL_SIZE: '2', VIPS_CONCURRENCY: '1' },
        }),
      workers: options.workers,
      queueLimit: options.queueLimit,
      timeoutMs: options.timeoutMs,
      timeoutFrom: 'start',
      answer,
      errors: {
        closed: () => new ServiceUnavailableError(new Error('image pool closed')),
        closing: () => new ServiceUnavailableError(new Error('closing')),
        // Load shedding, as the hashing queue: a warning, and the client is told when to try again.
        queueFull: () => new OverloadedError('image render queue is full'),
        // A renderer that dies, is killed or runs out of time is the service's failure, never the image's
        // verdict (that is a reply, RenderRefusedError): a 503 logged at error, and the client may retry at
        // once, because the next render gets a fresh child.
        timedOut: () => new ServiceUnavailableError(new Error('image render timed out'), 1),
        exited: () => new ServiceUnavailableError(new Error('image renderer exited'), 1),
        failed: () => new ServiceUnavailableError(new Error('image renderer failed'), 1),
        sendFailed: (cause) => new ServiceUnavailableError(cause),
      },
    });
  }

  run(source: unknown, maxPixels: number): Promise<RenderOutcome> {
    return this.pool.run({ source, maxPixels });
  }

  /** The pids of the running renderer children. */
  pids(): number[] {
    return this.pool.ids();
  }

  /** Stops every child; renders in flight or waiting fail with a 503. */
  close(): Promise<void> {
    return this.pool.close();
  }
}
