// The process-wide budget of image bytes in flight (R22, R39): one instance is
// built by the composition root and shared by every request; over budget, the
// image is unavailable (503), never queued in memory. A need larger than the whole
// budget (`limit`) could never be met: the normalizer refuses such a decoded frame as
// oversize (422, R23) instead of answering 503 for ever. It counts every copy a request
// holds: originals until normalized, then normalized bytes and the generator's
// copies (base64 parts, request body), all on one BudgetLease per request.

export class ByteBudget {
  readonly limit: number;
  #used = 0;

  constructor(limit: number) {
    if (!Number.isSafeInteger(limit) || limit < 1) throw new TypeError('ByteBudget limit must be a positive integer');
    this.limit = limit;
  }

  get used(): number {
    return this.#used;
  }

  /** Reserves `bytes` now or returns false; never waits. */
  tryReserve(bytes: number): boolean {
    if (bytes < 0 || this.#used + bytes > this.limit) return false;
    this.#used += bytes;
    return true;
  }

  release(bytes: number): void {
    this.#used = Math.max(0, this.#used - bytes);
  }
}

/** The reservations of one request (or one fetch call), released together, whatever the outcome. */
export class BudgetLease {
  readonly #budget: ByteBudget;
  #held = 0;
  /** Decoded frames of this lease being reserved now, and who waits for one to go. */
  #frames = 0;
  #frameWaiters: (() => void)[] = [];

  constructor(budget: ByteBudget) {
    this.#budget = budget;
  }

  /** What this lease holds now. */
  get held(): number {
    return this.#held;
  }

  /**
   * The whole budget (IMAGE_BYTES_IN_FLIGHT_MAX): what a reservation could get with nothing else
   * in flight. A need above it can never be met, however long the caller waits.
   */
  get limit(): number {
    return this.#budget.limit;
  }

  tryReserve(bytes: number): boolean {
    if (!this.#budget.tryReserve(bytes)) return false;
    this.#held += bytes;
    return true;
  }

  /**
   * Replaces `from` held bytes by `to` (an original by its normalized copy, R39): gives back
   * the difference, or reserves it when `to` is larger; false (nothing changed) when over budget.
   */
  exchange(from: number, to: number): boolean {
    if (to <= from) {
      this.shrink(from - to);
      return true;
    }
    return this.tryReserve(to - from);
  }

  /**
   * Reserves a decoded frame (R39). When the budget has no room but another frame of this same
   * lease is being decoded, waits for that one to be given back and tries again: a request's own
   * images (fetched and normalized several at once) must not shut each other out, or two large
   * photos that each fit would be 503 for ever on an idle instance. False when the room is held
   * by others (another request's images): that is 503 `budget` at once. Each frame
   * that decodes is bounded in time, so the wait is too; an abort ends it.
   */
  async reserveFrame(bytes: number, signal?: AbortSignal): Promise<boolean> {
    for (;;) {
      if (this.tryReserve(bytes)) {
        this.#frames += 1;
        return true;
      }
      if (this.#frames === 0) return false;
      signal?.throwIfAborted();
      await new Promise<void>((resolve, reject) => {
        const onAbort = (): void => reject(signal?.reason as Error);
        signal?.addEventListener('abort', onAbort, { once: true });
        this.#frameWaiters.push(() => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        });
      });
    }
  }

  /** Gives a decoded frame's reservation back, and wakes the frames of this lease waiting for room. */
  releaseFrame(bytes: number): void {
    this.shrink(bytes);
    this.#frames -= 1;
    const waiters = this.#frameWaiters;
    this.#frameWaiters = [];
    for (const wake of waiters) wake();
  }

  /** Gives back `bytes` of what the lease holds (an original traded for a smaller copy, a decoded frame). */
  shrink(bytes: number): void {
    const amount = Math.min(bytes, this.#held);
    this.#held -= amount;
    this.#budget.release(amount);
  }

  releaseAll(): void {
    this.shrink(this.#held);
  }
}
