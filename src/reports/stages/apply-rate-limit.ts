// Step 3: the technical rate limit per customer (ruling R20): 429 rate_limit_exceeded with
// Retry-After and the details of spec 2.5; a store that cannot answer fails closed with 503.
import { ApiError } from '../../errors/catalogue.ts';
import { rateLimitHeaders, secondsUntilReset } from '../../rate-limit/rate-limit-headers.ts';
import type { RateLimitDecision, RateLimiter } from '../../rate-limit/rate-limiter.ts';

/** The decision of an allowed request (its RateLimit fields go on the 201). */
export async function applyRateLimit(limiter: RateLimiter, customerId: string, now: Date): Promise<RateLimitDecision> {
  let decision;
  try {
    decision = await limiter.consume(customerId);
  } catch (cause) {
    throw new ApiError('rate_limit_unavailable', { cause });
  }
  if (!decision.allowed) {
    const retryAfterSeconds = secondsUntilReset(decision);
    throw new ApiError('rate_limit_exceeded', {
      details: {
        limit: decision.limit,
        remaining: 0,
        resetAt: new Date(now.getTime() + decision.resetInMs).toISOString(),
        retryAfterSeconds,
      },
      headers: { 'Retry-After': String(retryAfterSeconds), ...rateLimitHeaders(decision) },
    });
  }
  return decision;
}
