// Step 6: the monthly quota (spec section 8, rulings R17, R18, R31), before any remote fetch so a
// rejected request cannot be used as a downloader. Allowed iff used < limit (the last unit can be
// consumed); no reservation, so concurrent requests may share the last unit.
//
// Judged from the plan and usage that step 1 read (one statement) while that figure is fresh:
// step 1 runs when the headers arrive (R5), and a body may follow up to REQUEST_TIMEOUT_MS later.
// Spec section 8 computes the quota "from recorded usage before execution" and lets only
// concurrent requests share the last unit; a figure seconds old would let a client that sends
// headers on many connections and then the bodies one by one, each after the previous 201, take
// every one of them past the limit. So a figure older than QUOTA_FIGURE_MAX_AGE_MS is read again,
// for the same month (R17: the request stays in the month of step 1). The bound: only requests
// whose steps 1 to 6 overlap by at most that long can share the last unit, as concurrent ones may.
import type { Principal } from '../../auth/principal.ts';
import { PersistenceFailure } from '../../db/persistence-failure.ts';
import { readable, type Fact } from '../../accounts/api-key-directory.ts';
import { ApiError } from '../../errors/catalogue.ts';
import { remainingUnits, type PlanUsage } from '../../usage/plan-usage.ts';
import type { PlanUsageReader } from '../../usage/plan-usage-reader.ts';
import type { MonthPeriod } from '../../usage/period.ts';
import { EVIDENCE_REPORT_OPERATION } from '../../usage/usage-record.entity.ts';

export const REQUESTED_UNITS = 1;

/** How old step 1's usage figure may be when step 6 judges by it; older is read again. */
export const QUOTA_FIGURE_MAX_AGE_MS = 1_000;

/** The plan and usage step 6 judges by: step 1's while fresh, else read again now. */
export async function currentPlanUsage(reader: PlanUsageReader, principal: Principal, now: Date): Promise<Fact<PlanUsage | null>> {
  if (now.getTime() - principal.at.getTime() <= QUOTA_FIGURE_MAX_AGE_MS) return principal.planUsage;
  try {
    return readable(await reader.planUsage(principal.customerId, principal.period, principal.mode));
  } catch (cause) {
    if (cause instanceof PersistenceFailure) throw new ApiError('quota_check_unavailable', { cause });
    throw cause;
  }
}

export function checkQuota(principal: Pick<Principal, 'period'>, facts: Fact<PlanUsage | null>): void {
  if (!facts.readable) throw new ApiError('quota_check_unavailable');
  const planUsage = facts.value;
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
