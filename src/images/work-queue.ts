// A bounded queue of CPU-heavy work (R38, issue 12): at most `concurrency` jobs run at once and
// at most `maxWaiting` wait for a turn, each for at most `maxWaitMs`. Past any of these bounds a
// job is refused at once with 503 `normalizer_busy`: under overload the service answers fast,
// it never piles up decoded images in memory nor lets a request hang behind hundreds of others.
import { unavailable } from './image-fetch-error.ts';

export interface WorkQueueOptions {
  /** Jobs running at once. */
  readonly concurrency: number;
  /** Jobs waiting for a turn; one more is refused at once. */
  readonly maxWaiting: number;
  /** How long a job may wait for its turn before it is refused. */
  readonly maxWaitMs: number;
}

export class WorkQueue {
  readonly #options: WorkQueueOptions;
  /** The turns of the waiting jobs, first come first served. */
  readonly #waiting: (() => void)[] = [];
  #running = 0;

  constructor(options: WorkQueueOptions) {
    for (const [name, value] of Object.entries(options)) {
      if (!Number.isSafeInteger(value) || value < (name === 'maxWaiting' ? 0 : 1)) throw new TypeError(`WorkQueue: invalid ${name}`);
    }
    this.#options = options;
  }

  get running(): number {
    return this.#running;
  }

  get waiting(): number {
    return this.#waiting.length;
  }

  /** Runs `job` in its turn; refuses (ImageRefusal) when the queue is full, the wait too long or `signal` aborts. */
  async run<T>(job: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    await this.#turn(signal);
    try {
      return await job();
    } finally {
      this.#running--;
      this.#waiting.shift()?.();
    }
  }

  #turn(signal: AbortSignal | undefined): Promise<void> {
    if (signal?.aborted) return Promise.reject(unavailable('aborted'));
    if (this.#running < this.#options.concurrency && this.#waiting.length === 0) {
      this.#running++;
      return Promise.resolve();
    }
    if (this.#waiting.length >= this.#options.maxWaiting) return Promise.reject(unavailable('normalizer_busy'));
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
