// The process-wide budget of image bytes in flight (issue 3): one instance is
// built by the composition root and shared by the fetcher; over budget, the
// image is unavailable (503), never queued in memory.

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

/** The reservations of one fetch call, all released when the call ends, whatever its outcome. */
export class BudgetLease {
  readonly #budget: ByteBudget;
  #held = 0;

  constructor(budget: ByteBudget) {
    this.#budget = budget;
  }

  tryReserve(bytes: number): boolean {
    if (!this.#budget.tryReserve(bytes)) return false;
    this.#held += bytes;
    return true;
  }

  /** Gives back the part of a reservation that the body did not use. */
  shrink(bytes: number): void {
    const amount = Math.min(bytes, this.#held);
    this.#held -= amount;
    this.#budget.release(amount);
  }

  releaseAll(): void {
    this.shrink(this.#held);
  }
}
