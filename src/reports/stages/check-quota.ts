// Step 6: the monthly quota (spec section 8, rulings R17, R18, R31), before any remote fetch so a
// rejected request cannot be used as a downloader, judged from the plan and usage that step 1
// read (one statement). Allowed iff used < limit (the last unit can be consumed); no reservation, so
// concurrent requests may share the last unit.
import type { Principal } from '../../auth/principal.ts';
import { ApiError } from '../../errors/catalogue.ts';
import { remainingUnits, type PlanUsage } from '../../usage/plan-usage.ts';
import type { MonthPeriod } from '../../usage/period.ts';
import { EVIDENCE_REPORT_OPERATION } from '../../usage/usage-record.entity.ts';

export const REQUESTED_UNITS = 1;

export function checkQuota(principal: Principal): void {
  if (!principal.planUsage.readable) throw new ApiError('quota_check_unavailable');
  const planUsage = principal.planUsage.value;
  if (!planUsage) throw new ApiError('quota_access_denied');
  if (remainingUnits(planUsage) < REQUESTED_UNITS) throw quotaExceeded(planUsage, principal.period);
}

/** The 429 of an exhausted quota, with the details of spec 2.6. */
export function quotaExceeded(planUsage: Pick<PlanUsage, 'limit' | 'used'>, period: MonthPeriod): ApiError {
  // Ruling R31: no Retry-After on the quota 429; resetAt says when.
  return new ApiError('quota_exceeded', {
    details: {
      operation: EVIDENCE_REPORT_OPERATION,
      limit: planUsage.limit,
      used: planUsage.used,
      remaining: remainingUnits(planUsage),
      requestedUnits: REQUESTED_UNITS,
      resetAt: period.endsAt.toISOString(),
    },
  });
}
