// Step 3: the technical rate limit per customer (ruling R20): 429 rate_limit_exceeded with
// Retry-After and the details of spec 2.5; a store that cannot answer fails closed with 503.
// First the per-customer in-flight limit of this instance (R52): a concurrency limit is a
// technical rate limit, refused with the same code, `Retry-After: 1` and `details.limit` equal
// to the number of creations allowed in flight. It is checked before the window is consumed,
// so a refused request costs the customer no window point and no database round trip.
import { ApiError } from '../../errors/catalogue.ts';
import { rateLimitHeaders, secondsUntilReset } from '../../rate-limit/rate-limit-headers.ts';
import type { RateLimitDecision, RateLimiter } from '../../rate-limit/rate-limiter.ts';
import type { CustomerInFlight, InFlightSlot } from '../../rate-limit/customer-in-flight.ts';

/** The decision of an allowed request (its RateLimit fields go on the 201). */
export async function applyRateLimit(limiter: RateLimiter, customerId: string, now: Date): Promise<RateLimitDecision> {
  let decision;
  try {
    decision = await limiter.consume(customerId);
  } catch (cause) {
    throw new ApiError('rate_limit_unavailable', { cause });
  }
  if (!decision.allowed) throw rateLimitExceeded(decision, now);
  return decision;
}

/** The 429 of a refused decision: the details of spec 2.5, Retry-After and the RateLimit fields. */
export function rateLimitExceeded(decision: RateLimitDecision, now: Date): ApiError {
  const retryAfterSeconds = secondsUntilReset(decision);
  return new ApiError('rate_limit_exceeded', {
    details: {
      limit: decision.limit,
      remaining: 0,
      resetAt: new Date(now.getTime() + decision.resetInMs).toISOString(),
      retryAfterSeconds,
    },
    headers: { 'Retry-After': String(retryAfterSeconds), ...rateLimitHeaders({ ...decision, remaining: 0 }) },
  });
}

/** A place is freed as soon as any creation of the customer ends: a second is enough to wait. */
const IN_FLIGHT_RETRY_AFTER_SECONDS = 1;

/**
 * R52: a place among the customer's creations in flight, held until the request ends (the
 * caller disposes it on every path), or 429 rate_limit_exceeded when none is free.
 */
export function acquireInFlight(inFlight: CustomerInFlight, customerId: string, now: Date, onRefused: () => void = () => {}): InFlightSlot {
  const slot = inFlight.tryAcquire(customerId);
  if (slot) return slot;
  onRefused();
  throw new ApiError('rate_limit_exceeded', {
    details: {
      limit: inFlight.limit,
      remaining: 0,
      resetAt: new Date(now.getTime() + IN_FLIGHT_RETRY_AFTER_SECONDS * 1000).toISOString(),
      retryAfterSeconds: IN_FLIGHT_RETRY_AFTER_SECONDS,
    },
    headers: { 'Retry-After': String(IN_FLIGHT_RETRY_AFTER_SECONDS) },
  });
}
