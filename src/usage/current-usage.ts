// GET /v1/usage/current (spec 2.7 and 4.2, rulings R17, R18): judged from the facts that
// step 1's one read brought (the whole request is one statement). It writes nothing.
// A read that failed is 503 current_usage_unavailable, never `used: 0`. It does not need the
// product entitlement (R18).
import type { components } from '../../generated/openapi.d.ts';
import type { Principal } from '../auth/principal.ts';
import { ApiError } from '../errors/catalogue.ts';
import { usageItem } from './plan-usage.ts';

export type CurrentUsage = components['schemas']['CurrentUsage'];

export function currentUsage(principal: Principal): CurrentUsage {
  if (!principal.planUsage.readable) throw new ApiError('current_usage_unavailable');
  const planUsage = principal.planUsage.value;
  // R18: no active plan, or a plan that hides usage, is the same 403.
  if (!planUsage || !planUsage.usageVisible) throw new ApiError('current_usage_access_denied');
  const { period } = principal;
  return {
    period: { startsAt: period.startsAt.toISOString(), endsAt: period.endsAt.toISOString() },
    usage: [usageItem(planUsage)],
  };
}
