// R52: at most `limit` report creations of one customer in flight on this instance. A
// concurrency limit is a technical rate limit: one more is refused at step 3 with 429
// rate_limit_exceeded (apply-rate-limit.ts). The count lives in this process only: it bounds
// what one customer can hold of this instance (connections, memory, generator calls), which a
// shared window limit cannot.

/** A held place; disposing it gives the place back, once, whatever path the request took. */
export interface InFlightSlot extends Disposable {
  release(): void;
}

export class CustomerInFlight {
  readonly limit: number;
  readonly #counts = new Map<string, number>();

  /** `limit` 0 turns the limit off. */
  constructor(limit: number) {
    this.limit = limit;
  }

  /** A place for one more creation of `customerId`, or undefined when it already has `limit` in flight. */
  tryAcquire(customerId: string): InFlightSlot | undefined {
    if (this.limit === 0) return NO_SLOT;
    const held = this.#counts.get(customerId) ?? 0;
    if (held >= this.limit) return undefined;
    this.#counts.set(customerId, held + 1);
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      const left = (this.#counts.get(customerId) ?? 1) - 1;
      if (left <= 0) this.#counts.delete(customerId);
      else this.#counts.set(customerId, left);
    };
    return { release, [Symbol.dispose]: release };
  }
}

const NO_SLOT: InFlightSlot = Object.freeze({ release: () => {}, [Symbol.dispose]: () => {} });
