// The technical rate-limit port (ruling R20): per customer, a fixed number of report-creation
// requests per fixed window, separate from the quota. Adapters: rate-limiter-flexible on
// PostgreSQL (default, shared by every instance), memory, or Redis.
export interface RateLimitDecision {
  readonly allowed: boolean;
  readonly limit: number;
  readonly remaining: number;
  readonly windowSeconds: number;
  /** Milliseconds until the current window resets. */
  readonly resetInMs: number;
}

export interface RateLimiter {
  /** Counts one request. Throws RateLimitStoreError when the store cannot answer (fail closed). */
  consume(customerId: string): Promise<RateLimitDecision>;
  close(): Promise<void>;
}

export class RateLimitStoreError extends Error {
  override readonly name = 'RateLimitStoreError';
}
