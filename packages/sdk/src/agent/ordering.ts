/**
 * Ordering of handler work: serial within a key (a conversation),
 * concurrent across keys up to a bound.
 *
 * Each key has a lane (a FIFO of tasks). At most one task of a lane runs at
 * a time, and at most `concurrency` tasks run in total. Lanes that have work
 * wait in a round-robin queue, so one busy conversation cannot starve the
 * others: after each task its lane goes to the back of the queue.
 *
 * Tasks never make the scheduler fail: a task that throws is reported to
 * `onTaskError` and the lane moves on.
 *
 * @module
 */
import { ConfigurationError } from '../core/errors/configuration-error.js';

/** Options of {@link createOrderedScheduler}. */
export interface OrderedSchedulerOptions {
  /**
   * Most tasks running at once, across all keys.
   * @defaultValue `16`
   */
  concurrency?: number;
  /** Called when a task throws (tasks should catch their own errors; this is the safety net). */
  onTaskError?: (error: unknown, key: string) => void;
}

/** How a queued task ended. */
export type TaskOutcome = 'done' | 'dropped';

/** Serial-per-key, concurrent-across-keys task runner. */
export interface OrderedScheduler {
  /**
   * Queues `task` behind every earlier task of `key`. Resolves `'done'` once
   * the task has finished (whether or not it threw), or `'dropped'` when
   * {@link OrderedScheduler.clear} removed it before it started. Never rejects.
   */
  push(key: string, task: () => Promise<void> | void): Promise<TaskOutcome>;
  /** Tasks running now. */
  readonly running: number;
  /** Tasks queued and not yet started. */
  readonly queued: number;
  /** Keys with queued or running work. */
  readonly lanes: number;
  /** Resolves when no task is queued or running. */
  idle(): Promise<void>;
  /**
   * Drops every queued task that has not started (each one's `push` promise
   * resolves `'dropped'`) and returns how many were dropped. Running tasks continue.
   */
  clear(): number;
}

/** Every default of the scheduler. */
export const DEFAULT_ORDERING = { concurrency: 16 } as const satisfies { concurrency: number };

interface Job {
  readonly run: () => Promise<void> | void;
  readonly done: (outcome: TaskOutcome) => void;
}

interface Lane {
  readonly key: string;
  readonly jobs: Job[];
  head: number;
  busy: boolean;
}

class Scheduler implements OrderedScheduler {
  readonly #concurrency: number;
  readonly #onTaskError: (error: unknown, key: string) => void;
  readonly #lanes = new Map<string, Lane>();
  readonly #ready: Lane[] = [];
  #readyHead = 0;
  #running = 0;
  #queued = 0;
  #idleWaiters: (() => void)[] = [];

  constructor(options: OrderedSchedulerOptions) {
    const c = options.concurrency ?? DEFAULT_ORDERING.concurrency;
    if (!Number.isSafeInteger(c) || c < 1) {
      throw new ConfigurationError({
        option: 'concurrency',
        message: 'Option "concurrency" must be a positive integer.',
      });
    }
    this.#concurrency = c;
    this.#onTaskError = options.onTaskError ?? (() => undefined);
  }

  get running(): number {
    return this.#running;
  }

  get queued(): number {
    return this.#queued;
  }

  get lanes(): number {
    return this.#lanes.size;
  }

  push(key: string, task: () => Promise<void> | void): Promise<TaskOutcome> {
    return new Promise<TaskOutcome>((done) => {
      let lane = this.#lanes.get(key);
      if (lane === undefined) {
        lane = { key, jobs: [], head: 0, busy: false };
        this.#lanes.set(key, lane);
      }
      lane.jobs.push({ run: task, done });
      this.#queued += 1;
      // A lane is in the ready queue exactly when it is idle and has jobs.
      if (!lane.busy && lane.jobs.length - lane.head === 1) this.#ready.push(lane);
      this.#pump();
    });
  }

  idle(): Promise<void> {
    if (this.#running === 0 && this.#queued === 0) return Promise.resolve();
    return new Promise((resolve) => this.#idleWaiters.push(resolve));
  }

  clear(): number {
    let dropped = 0;
    for (const lane of this.#lanes.values()) {
      for (let i = lane.head; i < lane.jobs.length; i++) lane.jobs[i]!.done('dropped');
      dropped += lane.jobs.length - lane.head;
      lane.jobs.length = 0;
      lane.head = 0;
      if (!lane.busy) this.#lanes.delete(lane.key);
    }
    this.#ready.length = 0;
    this.#readyHead = 0;
    this.#queued = 0;
    this.#checkIdle();
    return dropped;
  }

  #pump(): void {
    while (this.#running < this.#concurrency && this.#readyHead < this.#ready.length) {
      const lane = this.#ready[this.#readyHead++]!;
      const job = lane.jobs[lane.head++];
      if (job === undefined) continue;
      lane.busy = true;
      this.#queued -= 1;
      this.#running += 1;
      void this.#run(lane, job);
    }
    if (this.#readyHead === this.#ready.length) {
      this.#ready.length = 0;
      this.#readyHead = 0;
    } else if (this.#readyHead > 1024 && this.#readyHead * 2 > this.#ready.length) {
      this.#ready.splice(0, this.#readyHead);
      this.#readyHead = 0;
    }
  }

  async #run(lane: Lane, job: Job): Promise<void> {
    try {
      await job.run();
    } catch (err) {
      try {
        this.#onTaskError(err, lane.key);
      } catch {
        // The safety net itself must not break the scheduler.
      }
    }
    job.done('done');
    this.#running -= 1;
    lane.busy = false;
    if (lane.head < lane.jobs.length) {
      if (lane.head > 256 && lane.head * 2 > lane.jobs.length) {
        lane.jobs.splice(0, lane.head);
        lane.head = 0;
      }
      this.#ready.push(lane); // round robin: back of the queue
    } else {
      this.#lanes.delete(lane.key);
    }
    this.#pump();
    this.#checkIdle();
  }

  #checkIdle(): void {
    if (this.#running !== 0 || this.#queued !== 0) return;
    for (const resolve of this.#idleWaiters.splice(0)) resolve();
  }
}

/**
 * Creates a scheduler that runs tasks of one key in order, one at a time,
 * and tasks of different keys concurrently, at most `concurrency` at once.
 *
 * @throws {@link ConfigurationError} when `concurrency` is not a positive integer.
 * @example
 * ```ts
 * const lanes = createOrderedScheduler({ concurrency: 8 });
 * void lanes.push(conversationId, () => handle(event)); // after earlier events of that conversation
 * await lanes.idle();
 * ```
 */
export function createOrderedScheduler(options: OrderedSchedulerOptions = {}): OrderedScheduler {
  return new Scheduler(options);
}
