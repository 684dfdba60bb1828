// IETF RateLimit / RateLimit-Policy header fields (draft-ietf-httpapi-ratelimit-headers),
// sent on 201 and on the rate-limit 429 (ruling R20), plus Retry-After for the 429 (spec 4.1).
import type { RateLimitDecision } from './rate-limiter.ts';

const POLICY = 'per-customer';

export function secondsUntilReset(decision: RateLimitDecision): number {
  return Math.max(1, Math.ceil(decision.resetInMs / 1000));
}

export function rateLimitHeaders(decision: RateLimitDecision): Record<string, string> {
  return {
    'RateLimit-Policy': `"${POLICY}";q=${decision.limit};w=${decision.windowSeconds}`,
    RateLimit: `"${POLICY}";r=${decision.remaining};t=${secondsUntilReset(decision)}`,
  };
}
