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
  /** Decoded frames of this lease held now (being decoded). */
  #frames = 0;
  /** This lease's images at work (begun, not ended): each may still give bytes back. */
  #working = 0;
  /** Reservations of this lease waiting for room now, and how to wake them. */
  #waiting = 0;
  #wakers: (() => void)[] = [];

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
   * An image of this lease starts (its download): until end(), what it holds may still shrink
   * (its original traded for the normalized copy) or go (it failed), so the lease's other images
   * wait for it rather than refuse each other (reserveWaiting).
   */
  begin(): void {
    this.#working += 1;
  }

  /** That image is done: normalized and exchanged, or failed. Wakes the lease's waiting reservations. */
  end(): void {
    this.#working -= 1;
    this.#wake();
  }

  /**
   * Reserves `bytes` for one of this lease's images, now or once the lease's own other images
   * have made room: a request's images (fetched and normalized several at once) must not shut
   * each other out, or two large photos that each fit would be 503 for ever on an idle instance.
   * So while a frame of this lease is being decoded, or another of its images is still at work
   * (begun and not itself waiting), the reservation waits for what they give back and tries
   * again. False when none is left at work: the room is held by others (another request's
   * images) or by this request's images as they will stay, 503 `budget`. The work waited for is
   * bounded in time (each download by its deadline, each decode by its timeout); an abort ends
   * the wait (the signal's reason is thrown).
   */
  async reserveWaiting(bytes: number, signal?: AbortSignal): Promise<boolean> {
    for (;;) {
      if (this.tryReserve(bytes)) return true;
      // The caller is one of the images at work (when begin() was called for it), not one to wait for.
      if (this.#frames === 0 && this.#working - this.#waiting - 1 <= 0) return false;
      signal?.throwIfAborted();
      this.#waiting += 1;
      try {
        await new Promise<void>((resolve, reject) => {
          const onAbort = (): void => reject(signal?.reason as Error);
          signal?.addEventListener('abort', onAbort, { once: true });
          this.#wakers.push(() => {
            signal?.removeEventListener('abort', onAbort);
            resolve();
          });
        });
      } finally {
        this.#waiting -= 1;
      }
    }
  }

  /** Reserves a decoded frame (R39), as reserveWaiting does; the frame is this lease's until releaseFrame. */
  async reserveFrame(bytes: number, signal?: AbortSignal): Promise<boolean> {
    if (!(await this.reserveWaiting(bytes, signal))) return false;
    this.#frames += 1;
    return true;
  }

  /** Gives a decoded frame's reservation back, and wakes the reservations of this lease waiting for room. */
  releaseFrame(bytes: number): void {
    this.#frames -= 1;
    this.shrink(bytes);
  }

  /** Gives back `bytes` of what the lease holds (an original traded for a smaller copy, a decoded frame). */
  shrink(bytes: number): void {
    const amount = Math.min(bytes, this.#held);
    this.#held -= amount;
    this.#budget.release(amount);
    this.#wake();
  }

  #wake(): void {
    if (this.#wakers.length === 0) return;
    const wakers = this.#wakers;
    this.#wakers = [];
    for (const wake of wakers) wake();
  }

  releaseAll(): void {
    this.shrink(this.#held);
  }
}
