import { type ForkOptions, fork } from 'node:child_process';
import { Worker, type WorkerOptions } from 'node:worker_threads';

/**
 * One pooled child as ChildPool drives it: a forked process or a worker thread, each running a plain
 * JavaScript script that answers every message it is sent with a message carrying the same `id`.
 */
export interface PoolChild {
  /** The child's id for operators: a process's pid, a thread's OS thread id (undefined until known). */
  id(): number | undefined;
  /** Hands a call over; `failed` runs if it could not be. */
  send(message: object, failed: (error: Error) => void): void;
  /** Whether the child keeps this process alive: held while it works for a caller, let go while idle. */
  hold(held: boolean): void;
  /** Ends the child at once (SIGKILL, or a thread's termination) and resolves once it has ended. */
  stop(): Promise<void>;
  onMessage(listener: (message: unknown) => void): void;
  /** It ended: a crash, a kill from outside, or stop(). */
  onExit(listener: () => void): void;
  /** It failed: could not be started or signalled, or (a thread) threw out of its script. */
  onError(listener: () => void): void;
}

/** Forks `script` as a child process; its stdout is dropped, its stderr is this process's. */
export function forkChild(
  script: string,
  options: Pick<ForkOptions, 'env' | 'execArgv' | 'serialization'>,
): PoolChild {
  const child = fork(script, [], { ...options, stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  const exited = new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once('exit', () => resolve());
  });
  return {
    id: () => child.pid,
    send: (message, failed) =>
      child.send(message, (error) => {
        if (error) failed(error);
      }),
    hold: (held) => {
      const channel = child.channel as { ref?: () => void; unref?: () => void } | undefined;
      if (held) {
        child.ref();
        channel?.ref?.();
      } else {
        child.unref();
        channel?.unref?.();
      }
    },
    stop: async () => {
      child.kill('SIGKILL');
      await exited;
    },
    onMessage: (listener) => child.on('message', listener),
    onExit: (listener) => child.on('exit', () => listener()),
    onError: (listener) => child.on('error', () => listener()),
  };
}

/**
 * What a pooled thread's script posts first, before any reply: its OS thread id (lower-priority.cjs,
 * `lowerThreadPriority`), or null where there is none to read. Taken here, never passed on as a reply.
 */
interface ThreadAnnouncement {
  threadTid: number | null;
}

function isAnnouncement(message: unknown): message is ThreadAnnouncement {
  return typeof message === 'object' && message !== null && 'threadTid' in message;
}

/**
 * Starts `script` on a worker thread of this process. A thread shares the process's memory (one Node
 * runtime, one copy of the native modules) where a forked process holds a runtime of its own, ~50 MB each.
 */
export function startThread(
  script: string,
  options: Pick<WorkerOptions, 'env' | 'resourceLimits'>,
): PoolChild {
  const worker = new Worker(script, options);
  let tid: number | undefined;
  let ended = false;
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  worker.once('exit', () => {
    ended = true;
  });
  return {
    id: () => tid,
    send: (message, failed) => {
      try {
        worker.postMessage(message);
      } catch (error) {
        failed(error instanceof Error ? error : new Error(String(error)));
      }
    },
    hold: (held) => (held ? worker.ref() : worker.unref()),
    stop: async () => {
      if (ended) return;
      await worker.terminate();
      await exited;
    },
    onMessage: (listener) =>
      worker.on('message', (message: unknown) => {
        if (!isAnnouncement(message)) return listener(message);
        tid = message.threadTid ?? undefined;
      }),
    onExit: (listener) => worker.on('exit', () => listener()),
    onError: (listener) => worker.on('error', () => listener()),
  };
}
