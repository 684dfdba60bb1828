// A fake RateLimiter for unit tests: allows a number of requests per
// customer, then refuses; or fails as a store that cannot answer would (R20).
import { RateLimitStoreError, type RateLimitDecision, type RateLimiter } from './rate-limiter.ts';

export class FakeRateLimiter implements RateLimiter {
  readonly #counts = new Map<string, number>();
  readonly limit: number;
  unavailable = false;

  constructor(limit = 60) {
    this.limit = limit;
  }

  async consume(customerId: string): Promise<RateLimitDecision> {
    if (this.unavailable) throw new RateLimitStoreError('fake store unavailable');
    const count = (this.#counts.get(customerId) ?? 0) + 1;
    this.#counts.set(customerId, count);
    const allowed = count <= this.limit;
    return { allowed, limit: this.limit, remaining: Math.max(this.limit - count, 0), windowSeconds: 60, resetInMs: 30_000 };
  }

  async close(): Promise<void> {}
}
