// A bounded queue of CPU-heavy work (R38): at most `concurrency` jobs run at once and
// at most `maxWaiting` more are admitted to wait, each for at most `maxWaitMs`. Past any of
// these bounds a job is refused at once with 503 `normalizer_busy`: under overload the service
// answers fast, it never piles up images in memory nor lets a request hang behind hundreds of
// others. A request admits all its images in one decision (`admit`), before fetching any: a
// request that could not be served whole is refused before it downloads a byte. The decision
// counts places and time: with the recent run time of a job (a moving average, which grows when
// the machine is busy), a request whose last image would wait past maxWaitMs is refused now,
// rather than admitted to be refused after waiting.
// A request's places are held while its images download too (they are promised before), so one
// customer's slow images could hold every place and shut every other customer out, within its
// rate limit. An admission may name its owner (the customer): no owner holds more than
// `maxPerOwner` places at once.
import { unavailable } from './image-fetch-error.ts';

interface WorkQueueOptions {
  /** Jobs running at once. */
  readonly concurrency: number;
  /** Jobs admitted beyond those running (waiting, or promised to an admitted request). */
  readonly maxWaiting: number;
  /** How long a job may wait for its turn before it is refused. */
  readonly maxWaitMs: number;
  /** The most places one owner's admissions hold at once (default: all of them). */
  readonly maxPerOwner?: number;
}

/** Places in the queue promised to one request's jobs; the unused ones are given back on dispose. */
export class Admission implements Disposable {
  #left: number;
  readonly #giveBack: (places: number) => void;
  /** Gives back the owner's count of a place a job took, when that job ends. */
  readonly jobEnded: () => void;

  constructor(places: number, giveBack: (places: number) => void, jobEnded: () => void = () => {}) {
    this.#left = places;
    this.#giveBack = giveBack;
    this.jobEnded = jobEnded;
  }

  /** Moves one place to a job (which gives it back when it ends); false when none is left. */
  take(): boolean {
    if (this.#left === 0) return false;
    this.#left--;
    return true;
  }

  [Symbol.dispose](): void {
    this.#giveBack(this.#left);
    this.#left = 0;
  }
}

export class WorkQueue {
  readonly #options: WorkQueueOptions;
  /** The turns of the waiting jobs, first come first served. */
  readonly #waiting: (() => void)[] = [];
  #running = 0;
  /** Places taken: running, waiting, or promised by an admission. */
  #admitted = 0;
  /** Moving average of how long a job runs, in ms; unknown until one has run. */
  #meanRunMs: number | undefined;
  /** Places held by each owner's admissions (promised or taken by their jobs). */
  readonly #held = new Map<string, number>();

  constructor(options: WorkQueueOptions) {
    for (const [name, value] of Object.entries(options)) {
      if (value !== undefined && (!Number.isSafeInteger(value) || value < (name === 'maxWaiting' ? 0 : 1))) throw new TypeError(`WorkQueue: invalid ${name}`);
    }
    this.#options = options;
  }

  get running(): number {
    return this.#running;
  }

  get waiting(): number {
    return this.#waiting.length;
  }

  /** Places taken now (running, waiting, promised). */
  get admitted(): number {
    return this.#admitted;
  }

  /** Moving average of a job's run time (ms), once one has run. */
  get meanRunMs(): number | undefined {
    return this.#meanRunMs;
  }

  /**
   * Promises `count` places at once, or undefined when the queue has not that many free or
   * the last of them would likely wait longer than maxWaitMs.
   */
  admit(count: number, owner?: string): Admission | undefined {
    const { concurrency, maxWaiting, maxWaitMs, maxPerOwner } = this.#options;
    if (this.#admitted + count > concurrency + maxWaiting) return undefined;
    const ahead = this.#admitted + count - concurrency;
    if (this.#meanRunMs !== undefined && ahead > 0 && (ahead / concurrency) * this.#meanRunMs > maxWaitMs) return undefined;
    if (owner !== undefined && maxPerOwner !== undefined && this.heldBy(owner) + count > maxPerOwner) return undefined;
    this.#admitted += count;
    this.#hold(owner, count);
    return new Admission(
      count,
      (places) => {
        this.#admitted -= places;
        this.#hold(owner, -places);
      },
      () => this.#hold(owner, -1),
    );
  }

  /** Places `owner`'s admissions hold now. */
  heldBy(owner: string): number {
    return this.#held.get(owner) ?? 0;
  }

  #hold(owner: string | undefined, places: number): void {
    if (owner === undefined || places === 0) return;
    const now = this.heldBy(owner) + places;
    if (now > 0) this.#held.set(owner, now);
    else this.#held.delete(owner);
  }

  /**
   * Runs `job` in its turn, on a place of `admission` or on a free one; refuses (ImageRefusal)
   * when there is no place, the wait is too long or `signal` aborts.
   */
  async run<T>(job: () => Promise<T>, signal?: AbortSignal, admission?: Admission): Promise<T> {
    const promised = admission?.take() === true ? admission : undefined;
    if (promised === undefined) {
      if (this.#admitted >= this.#options.concurrency + this.#options.maxWaiting) throw unavailable('normalizer_busy');
      this.#admitted++;
    }
    try {
      await this.#turn(signal);
      const started = performance.now();
      try {
        return await job();
      } finally {
        const ranMs = performance.now() - started;
        this.#meanRunMs = this.#meanRunMs === undefined ? ranMs : 0.8 * this.#meanRunMs + 0.2 * ranMs;
        this.#running--;
        this.#waiting.shift()?.();
      }
    } finally {
      this.#admitted--;
      promised?.jobEnded();
    }
  }

  #turn(signal: AbortSignal | undefined): Promise<void> {
    if (signal?.aborted) return Promise.reject(unavailable('aborted'));
    if (this.#running < this.#options.concurrency && this.#waiting.length === 0) {
      this.#running++;
      return Promise.resolve();
    }
    return new Promise<void>((resolve, reject) => {
      const leave = (error: Error): void => {
        const at = this.#waiting.indexOf(waiter);
        if (at !== -1) this.#waiting.splice(at, 1);
        done();
        reject(error);
      };
      const onAbort = (): void => leave(unavailable('aborted'));
      const timer = setTimeout(() => leave(unavailable('normalizer_busy')), this.#options.maxWaitMs);
      const done = (): void => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
      };
      const waiter = (): void => {
        done();
        this.#running++;
        resolve();
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#waiting.push(waiter);
    });
  }
}
