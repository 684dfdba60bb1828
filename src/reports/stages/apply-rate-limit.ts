// Step 3: the technical rate limit per customer (ruling R20): 429 rate_limit_exceeded with
// Retry-After and the details of spec 2.5; a store that cannot answer fails closed with 503.
import { ApiError } from '../../errors/catalogue.ts';
import { rateLimitHeaders, secondsUntilReset } from '../../rate-limit/rate-limit-headers.ts';
import type { RateLimiter } from '../../rate-limit/rate-limiter.ts';
import type { PipelineState, Stage } from '../pipeline-state.ts';

export function applyRateLimit(limiter: RateLimiter): Stage {
  return {
    step: '3. technical rate limit',
    async run(state: PipelineState) {
      let decision;
      try {
        decision = await limiter.consume(state.principal.customerId);
      } catch (cause) {
        throw new ApiError('rate_limit_unavailable', { cause });
      }
      if (!decision.allowed) {
        const retryAfterSeconds = secondsUntilReset(decision);
        throw new ApiError('rate_limit_exceeded', {
          details: {
            limit: decision.limit,
            remaining: 0,
            resetAt: new Date(state.now.getTime() + decision.resetInMs).toISOString(),
            retryAfterSeconds,
          },
          headers: { 'Retry-After': String(retryAfterSeconds), ...rateLimitHeaders(decision) },
        });
      }
      state.rateLimit = decision;
    },
  };
}
