// Step 6: the monthly quota (spec section 8, rulings R17, R18, R31), before any remote fetch so
// a rejected request cannot be used as a downloader. Allowed iff used < limit (the last unit
// can be consumed); no reservation, so concurrent requests may share the last unit.
import type { Sql } from '../../db/sql.ts';
import { ApiError } from '../../errors/catalogue.ts';
import { monthPeriod } from '../../usage/period.ts';
import { EVIDENCE_REPORT_OPERATION } from '../../usage/usage-record.entity.ts';
import { readPlanUsage } from '../../usage/plan-usage.ts';
import type { PipelineState, Stage } from '../pipeline-state.ts';

const REQUESTED_UNITS = 1;

export function checkQuota(sql: Sql): Stage {
  return {
    step: '6. monthly quota',
    async run(state: PipelineState) {
      const period = monthPeriod(state.now);
      let planUsage;
      try {
        planUsage = await readPlanUsage(sql, state.principal.customerId, period.startsAt);
      } catch (cause) {
        throw new ApiError('quota_check_unavailable', { cause });
      }
      if (!planUsage) throw new ApiError('quota_access_denied');
      const remaining = Math.max(planUsage.limit - planUsage.used, 0);
      if (remaining < REQUESTED_UNITS) {
        // Ruling R31: no Retry-After on the quota 429; resetAt says when.
        throw new ApiError('quota_exceeded', {
          details: {
            operation: EVIDENCE_REPORT_OPERATION,
            limit: planUsage.limit,
            used: planUsage.used,
            remaining,
            requestedUnits: REQUESTED_UNITS,
            resetAt: period.endsAt.toISOString(),
          },
        });
      }
    },
  };
}
