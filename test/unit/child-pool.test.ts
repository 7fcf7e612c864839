import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ChildPool, type ChildPoolOptions } from '../../src/lib/child-pool.js';
import { forkChild, startThread } from '../../src/lib/pool-children.js';

const SCRIPT = fileURLToPath(new URL('../helpers/child-pool-worker.mjs', import.meta.url));

type TestCall =
  | { op: 'echo'; value: string; delayMs?: number }
  | { op: 'meet'; value: string; dir: string; count: number }
  | { op: 'refuse' }
  | { op: 'hang' }
  | { op: 'exit' };

interface TestReply {
  id: number;
  ok: boolean;
  value?: string;
  met?: boolean;
  message?: string;
  pid: number;
  startedAt: number;
  endedAt: number;
}

interface Answered {
  value: string | undefined;
  met?: boolean;
  pid: number;
  startedAt: number;
  endedAt: number;
}

/** Every error the pool makes, named for the hook that made it: a test sees which one a call failed with. */
class PoolError extends Error {
  constructor(readonly kind: string) {
    super(kind);
  }
}

/** How long a test waits for children to start or end: seconds on a loaded machine, not vi.waitFor's one. */
const CHILD_START_TIMEOUT = { timeout: 15_000, interval: 20 };

const failedWith = (kind: string) => expect.objectContaining({ kind });

type Kind = 'process' | 'thread';

/** A process by its pid; a thread of this process by its OS thread id (Linux: /proc/<pid>/task/<tid>). */
function isAlive(kind: Kind, id: number): boolean {
  if (kind === 'thread') return existsSync(`/proc/${process.pid}/task/${id}`);
  try {
    process.kill(id, 0);
    return true;
  } catch {
    return false;
  }
}

const start: Record<Kind, () => ReturnType<typeof forkChild>> = {
  process: () => forkChild(SCRIPT, { env: { PATH: process.env.PATH ?? '' } }),
  thread: () => startThread(SCRIPT, {}),
};

// A thread's id is read from /proc/thread-self (Linux); without it a thread pool reports no ids to check.
const kinds: Kind[] = existsSync('/proc/thread-self') ? ['process', 'thread'] : ['process'];

describe.each(kinds)('ChildPool of %s children', (kind) => {
  const pools: ChildPool<TestCall, Answered, TestReply>[] = [];
  const pool = (
    options: Partial<ChildPoolOptions<Answered, TestReply>> & { workers: number; queueLimit: number },
  ) => {
    const made = new ChildPool<TestCall, Answered, TestReply>({
      start: start[kind],
      timeoutMs: 30_000,
      timeoutFrom: 'start',
      answer: (reply) => {
        if (!reply.ok) throw new PoolError(`answer: ${reply.message}`);
        const { value, met, pid, startedAt, endedAt } = reply;
        return { value, met, pid, startedAt, endedAt };
      },
      errors: {
        closed: () => new PoolError('closed'),
        closing: () => new PoolError('closing'),
        queueFull: () => new PoolError('queueFull'),
        timedOut: () => new PoolError('timedOut'),
        exited: () => new PoolError('exited'),
        failed: () => new PoolError('failed'),
        sendFailed: () => new PoolError('sendFailed'),
      },
      ...options,
    });
    pools.push(made);
    return made;
  };
  afterEach(async () => {
    await Promise.all(pools.splice(0).map((made) => made.close()));
  });

  it('answers calls in parallel up to the bound, each in a child of its own', async () => {
    const children = pool({ workers: 2, queueLimit: 0 });
    const dir = await mkdtemp(path.join(tmpdir(), 'child-pool-meet-'));
    try {
      // Each call waits until both have started: one run after the other would never meet.
      const [first, second] = await Promise.all([
        children.run({ op: 'meet', value: 'one', dir, count: 2 }),
        children.run({ op: 'meet', value: 'two', dir, count: 2 }),
      ]);
      expect([first?.value, second?.value]).toEqual(['one', 'two']);
      expect([first?.met, second?.met]).toEqual([true, true]);
      expect(first?.pid).not.toBe(second?.pid);
      expect([first?.pid, second?.pid]).not.toContain(process.pid);
      expect(children.ids().sort()).toEqual([first?.pid, second?.pid].sort());
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('queues calls beyond the bound and runs them, in order, on the children it has', async () => {
    const children = pool({ workers: 2, queueLimit: 2 });
    const calls = ['one', 'two', 'three', 'four'].map((value) =>
      children.run({ op: 'echo', value, delayMs: 300 }),
    );
    // Two children, however many calls (a thread's id is known once it has said it).
    await vi.waitFor(() => expect(children.ids()).toHaveLength(2), CHILD_START_TIMEOUT);
    const answers = await Promise.all(calls);
    expect(answers.map((answer) => answer.value)).toEqual(['one', 'two', 'three', 'four']);
    expect(new Set(answers.map((answer) => answer.pid)).size).toBe(2);
    const [one, two, three, four] = answers as [Answered, Answered, Answered, Answered];
    // The queued ones started only once a child had answered a call of the first two.
    const firstFree = Math.min(one.endedAt, two.endedAt);
    expect(three.startedAt).toBeGreaterThanOrEqual(firstFree);
    expect(four.startedAt).toBeGreaterThanOrEqual(firstFree);
  });

  it('refuses a call at once when every child is busy and the queue is full', async () => {
    const children = pool({ workers: 1, queueLimit: 1 });
    const working = children.run({ op: 'hang' });
    const queued = children.run({ op: 'hang' });
    const outcomes = Promise.allSettled([working, queued]);
    await expect(children.run({ op: 'echo', value: 'shed' })).rejects.toEqual(failedWith('queueFull'));
    await vi.waitFor(() => expect(children.ids()).toHaveLength(1), CHILD_START_TIMEOUT);
    await children.close();
    const [first, second] = await outcomes;
    expect(first).toMatchObject({ status: 'rejected', reason: failedWith('closed') });
    expect(second).toMatchObject({ status: 'rejected', reason: failedWith('closing') });
  });

  it('counts a call handed to a busy child in advance as waiting', async () => {
    const children = pool({ workers: 1, queueLimit: 1, callsPerChild: 2 });
    const working = children.run({ op: 'hang' });
    const handedOver = children.run({ op: 'echo', value: 'behind' });
    const outcomes = Promise.allSettled([working, handedOver]);
    await expect(children.run({ op: 'echo', value: 'shed' })).rejects.toEqual(failedWith('queueFull'));
    await children.close();
    const [first, second] = await outcomes;
    expect(first).toMatchObject({ status: 'rejected', reason: failedWith('closed') });
    // Closing, a call a child held in advance fails with the child's error.
    expect(second).toMatchObject({ status: 'rejected', reason: failedWith('closed') });
  });

  it('fails a call past its timeout, kills its child, and answers the next call in a fresh one', async () => {
    const children = pool({ workers: 1, queueLimit: 1, timeoutMs: 1_000 });
    const { pid: stuck } = await children.run({ op: 'echo', value: 'warm' });
    await expect(children.run({ op: 'hang' })).rejects.toEqual(failedWith('timedOut'));
    await vi.waitFor(() => expect(isAlive(kind, stuck)).toBe(false), CHILD_START_TIMEOUT);
    const after = await children.run({ op: 'echo', value: 'after' });
    expect(after.value).toBe('after');
    expect(after.pid).not.toBe(stuck);
  });

  it('times a call from its start when told to: a call queued behind a stuck one is answered', async () => {
    const children = pool({ workers: 1, queueLimit: 1, timeoutMs: 1_000 });
    const stuck = children.run({ op: 'hang' });
    const behind = children.run({ op: 'echo', value: 'behind' });
    await expect(stuck).rejects.toEqual(failedWith('timedOut'));
    expect((await behind).value).toBe('behind');
  });

  it('times a call from when it was made when told to: the wait counts', async () => {
    const children = pool({ workers: 1, queueLimit: 1, timeoutMs: 400, timeoutFrom: 'call' });
    const stuck = children.run({ op: 'hang' });
    const behind = children.run({ op: 'echo', value: 'behind', delayMs: 200 });
    await expect(stuck).rejects.toEqual(failedWith('timedOut'));
    await expect(behind).rejects.toEqual(failedWith('timedOut'));
  });

  it('fails the call of a child that ends mid-call with the pool error, and replaces the child', async () => {
    const children = pool({ workers: 1, queueLimit: 1, callsPerChild: 2 });
    const { pid: ended } = await children.run({ op: 'echo', value: 'warm' });
    const working = children.run({ op: 'exit' });
    const queued = children.run({ op: 'echo', value: 'queued' });
    await expect(working).rejects.toEqual(failedWith('exited'));
    const answered = await queued;
    expect(answered.value).toBe('queued');
    expect(answered.pid).not.toBe(ended);
    expect(children.ids()).toEqual([answered.pid]);
  });

  it('fails a call whose reply the owner refuses, and keeps the child', async () => {
    const children = pool({ workers: 1, queueLimit: 0 });
    const { pid } = await children.run({ op: 'echo', value: 'warm' });
    await expect(children.run({ op: 'refuse' })).rejects.toEqual(failedWith('answer: refused'));
    expect((await children.run({ op: 'echo', value: 'again' })).pid).toBe(pid);
  });

  it('ends every child on close, fails what they held, and refuses calls after it', async () => {
    const children = pool({ workers: 3, queueLimit: 0 });
    const held = Promise.allSettled([
      children.run({ op: 'hang' }),
      children.run({ op: 'hang' }),
      children.run({ op: 'echo', value: 'slow', delayMs: 10_000 }),
    ]);
    await vi.waitFor(() => expect(children.ids()).toHaveLength(3), CHILD_START_TIMEOUT);
    const pids = children.ids();
    await children.close();
    for (const pid of pids) expect(isAlive(kind, pid)).toBe(false);
    expect(children.ids()).toEqual([]);
    for (const outcome of await held)
      expect(outcome).toMatchObject({ status: 'rejected', reason: failedWith('closed') });
    await expect(children.run({ op: 'echo', value: 'late' })).rejects.toEqual(failedWith('closed'));
  });
});
