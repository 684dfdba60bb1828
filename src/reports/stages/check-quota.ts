// Step 6: the monthly quota (spec section 8, rulings R17, R18, R31), before any remote fetch so a
// rejected request cannot be used as a downloader, judged from the plan and usage that step 1
// read (issue 11). Allowed iff used < limit (the last unit can be consumed); no reservation, so
// concurrent requests may share the last unit.
import type { Principal } from '../../auth/principal.ts';
import { ApiError } from '../../errors/catalogue.ts';
import { remainingUnits } from '../../usage/plan-usage.ts';
import { EVIDENCE_REPORT_OPERATION } from '../../usage/usage-record.entity.ts';

export const REQUESTED_UNITS = 1;

export function checkQuota(principal: Principal): void {
  if (!principal.planUsage.readable) throw new ApiError('quota_check_unavailable');
  const planUsage = principal.planUsage.value;
  if (!planUsage) throw new ApiError('quota_access_denied');
  const remaining = remainingUnits(planUsage);
  if (remaining < REQUESTED_UNITS) {
    // Ruling R31: no Retry-After on the quota 429; resetAt says when.
    throw new ApiError('quota_exceeded', {
      details: {
        operation: EVIDENCE_REPORT_OPERATION,
        limit: planUsage.limit,
        used: planUsage.used,
        remaining,
        requestedUnits: REQUESTED_UNITS,
        resetAt: principal.period.endsAt.toISOString(),
      },
    });
  }
}
