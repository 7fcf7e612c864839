import type { PoolChild } from './pool-children.js';

/** What every reply of a pooled child carries: the id of the call it answers. */
export interface ChildReply {
  id: number;
}

/**
 * The errors a pool's callers see, each made by the pool's owner: their types and messages are what the HTTP
 * layer turns into a status and what the log shows, so each pool keeps its own.
 */
export interface ChildPoolErrors {
  /** A call made after close(), and a call a child held when close() stopped that child. */
  closed(): unknown;
  /** A call still queued when close() ran. */
  closing(): unknown;
  /** A call refused at once: every child is busy and the queue is full. */
  queueFull(): unknown;
  /** A call not answered in time. */
  timedOut(): unknown;
  /** The call a child was working on when the child exited (a crash, a kill from outside). */
  exited(): unknown;
  /** The call a child was working on when the child failed (could not be started or signalled, or threw). */
  failed(): unknown;
  /** The call that could not be sent to its child. */
  sendFailed(cause: Error): unknown;
}

export interface ChildPoolOptions<Result, Reply extends ChildReply> {
  /** Starts one child: a process (`forkChild`) or a thread (`startThread`) of pool-children.ts. */
  start(): PoolChild;
  /** Children working at once, at most. */
  workers: number;
  /** Calls waiting for a child, at most; one more is refused at once (`errors.queueFull`). */
  queueLimit: number;
  timeoutMs: number;
  /**
   * Where a call's time starts: when it is made (the wait for a child counts) or when a child starts it.
   * Either way a child still working on a call at its timeout is stopped, and a fresh one takes the calls behind.
   */
  timeoutFrom: 'call' | 'start';
  /**
   * Calls handed to one child at once (default 1): more than one lets a child start its next call the moment
   * it has sent its last reply. A call handed over in advance still counts as waiting.
   */
  callsPerChild?: number;
  /** Turns a child's reply into the call's result; throws to fail the call. */
  answer(reply: Reply): Result;
  errors: ChildPoolErrors;
}

interface Call<Result> {
  message: object & ChildReply;
  resolve(value: Result): void;
  reject(error: unknown): void;
  timer: NodeJS.Timeout | undefined;
  slot: Slot<Result> | undefined;
}

/** One child and its calls: the first is the one it works on, any behind it were handed over in advance. */
interface Slot<Result> {
  child: PoolChild;
  calls: Call<Result>[];
}

/**
 * A bounded pool of children (processes or threads, `start`), each answering the calls sent to it by id: at most
 * `workers` calls worked on at once, at most `queueLimit` waiting (load shedding: the next is refused at once
 * instead of a queue that grows until every call times out), each call bounded in time. A child that dies is
 * replaced on the next call. Children start on first use and let go of the process while idle, so an idle
 * pool never holds the process open.
 */
export class ChildPool<Job extends object, Result, Reply extends ChildReply = ChildReply> {
  private readonly slots: Slot<Result>[] = [];
  private readonly waiting: Call<Result>[] = [];
  private readonly callsPerChild: number;
  private nextId = 1;
  private closed = false;

  constructor(private readonly options: ChildPoolOptions<Result, Reply>) {
    this.callsPerChild = options.callsPerChild ?? 1;
  }

  /** Sends `job` (with an `id` added) to a child; resolves with `answer` of the child's reply. */
  run(job: Job): Promise<Result> {
    const { errors } = this.options;
    if (this.closed) return Promise.reject(errors.closed());
    if (!this.canStartNow() && this.waitingCount() >= this.options.queueLimit) {
      return Promise.reject(errors.queueFull());
    }
    return new Promise((resolve, reject) => {
      const call: Call<Result> = {
        message: { ...job, id: this.nextId++ },
        resolve,
        reject,
        timer: undefined,
        slot: undefined,
      };
      if (this.options.timeoutFrom === 'call') this.startTimer(call);
      this.waiting.push(call);
      this.dispatch();
    });
  }

  /** The ids of the running children (PoolChild.id: pids of processes, OS thread ids of threads). */
  ids(): number[] {
    return this.slots.flatMap((slot) => {
      const id = slot.child.id();
      return id === undefined ? [] : [id];
    });
  }

  /** Stops every child; calls waiting fail with `errors.closing`, calls in a child with `errors.closed`. */
  async close(): Promise<void> {
    this.closed = true;
    for (const call of this.waiting.splice(0)) this.fail(call, this.options.errors.closing());
    // A copy: stop() takes each slot out of `slots` itself (and fails the calls it held).
    const closing = this.options.errors.closed();
    await Promise.all([...this.slots].map((slot) => this.stop(slot, closing)));
  }

  /** An idle child, or room for one more. */
  private canStartNow(): boolean {
    return this.slots.length < this.options.workers || this.slots.some((slot) => slot.calls.length === 0);
  }

  /** Calls not worked on yet: in the queue, or handed to a busy child in advance. */
  private waitingCount(): number {
    let handedOver = 0;
    for (const slot of this.slots) handedOver += Math.max(0, slot.calls.length - 1);
    return this.waiting.length + handedOver;
  }

  /** Hands waiting calls out: to idle children first, then to new ones, then in advance to busy ones. */
  private dispatch(): void {
    while (!this.closed && this.waiting.length > 0) {
      const slot = this.freeSlot();
      if (!slot) return;
      this.start(slot, this.waiting.shift() as Call<Result>);
    }
  }

  private freeSlot(): Slot<Result> | undefined {
    const idle = this.slots.find((slot) => slot.calls.length === 0);
    if (idle) return idle;
    if (this.slots.length < this.options.workers) return this.spawnSlot();
    return this.slots.find((slot) => slot.calls.length < this.callsPerChild);
  }

  private startTimer(call: Call<Result>): void {
    call.timer = setTimeout(() => this.timeOut(call), this.options.timeoutMs);
  }

  private timeOut(call: Call<Result>): void {
    const error = this.options.errors.timedOut();
    const slot = call.slot;
    if (slot && slot.calls[0] === call) {
      // Worked on for too long: the child is stuck or starved; a fresh one takes the calls behind it.
      void this.stop(slot, error);
      return;
    }
    // Still waiting, in the queue or behind a child's call: answered now. Taken out of the child's calls too,
    // so every call a slot holds has a live timer (its first one always bounds the child); the child's late
    // reply finds no call and is dropped.
    const queue = slot ? slot.calls : this.waiting;
    const index = queue.indexOf(call);
    if (index !== -1) queue.splice(index, 1);
    call.slot = undefined;
    this.fail(call, error);
  }

  private fail(call: Call<Result>, error: unknown): void {
    clearTimeout(call.timer);
    call.reject(error);
  }

  private spawnSlot(): Slot<Result> {
    const child = this.options.start();
    child.hold(false);
    const slot: Slot<Result> = { child, calls: [] };
    this.slots.push(slot);
    child.onMessage((reply) => this.finish(slot, reply as Reply));
    // A dead child fails the call it was working on; the calls behind it get a fresh child.
    child.onExit(() => this.remove(slot, this.options.errors.exited()));
    child.onError(() => this.remove(slot, this.options.errors.failed()));
    return slot;
  }

  private start(slot: Slot<Result>, call: Call<Result>): void {
    slot.calls.push(call);
    call.slot = slot;
    slot.child.hold(true);
    if (call.timer === undefined) this.startTimer(call);
    slot.child.send(call.message, (error) => void this.stop(slot, this.options.errors.sendFailed(error)));
  }

  private finish(slot: Slot<Result>, reply: Reply): void {
    const index = slot.calls.findIndex((call) => call.message.id === reply.id);
    if (index === -1) return;
    const [call] = slot.calls.splice(index, 1) as [Call<Result>];
    call.slot = undefined;
    if (slot.calls.length === 0) slot.child.hold(false);
    clearTimeout(call.timer);
    try {
      call.resolve(this.options.answer(reply));
    } catch (error) {
      call.reject(error);
    }
    this.dispatch();
  }

  /** Ends the child (its calls are failed or requeued, see remove). */
  private async stop(slot: Slot<Result>, error: unknown): Promise<void> {
    this.remove(slot, error);
    await slot.child.stop();
  }

  /**
   * Takes the slot out: the call its child was working on fails with `error`; the calls handed to it in
   * advance go back to the front of the queue, in order, for another child (or fail too when the pool is
   * closing).
   */
  private remove(slot: Slot<Result>, error: unknown): void {
    const index = this.slots.indexOf(slot);
    if (index === -1) return;
    this.slots.splice(index, 1);
    const [working, ...behind] = slot.calls.splice(0);
    slot.child.hold(false);
    if (working) {
      working.slot = undefined;
      this.fail(working, error);
    }
    for (const call of behind) call.slot = undefined;
    if (this.closed) {
      for (const call of behind) this.fail(call, error);
      return;
    }
    this.waiting.unshift(...behind);
    this.dispatch();
  }
}
