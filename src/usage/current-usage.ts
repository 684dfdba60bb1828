// GET /v1/usage/current (spec 2.7 and 4.2, rulings R17, R18): the customer's active plan and
// the exact total of the current UTC month, read in one statement. It writes nothing. A read
// that fails is 503 current_usage_unavailable, never `used: 0`.
import type { Sql } from '../db/sql.ts';
import type { components } from '../../generated/openapi.d.ts';
import { ApiError } from '../errors/catalogue.ts';
import type { Clock } from '../shared/clock.ts';
import { monthPeriod } from './period.ts';
import { EVIDENCE_REPORT_OPERATION } from './usage-record.entity.ts';
import { readPlanUsage } from './plan-usage.ts';

export type CurrentUsage = components['schemas']['CurrentUsage'];

export interface CurrentUsageDeps {
  sql: Sql;
  clock: Clock;
}

export class CurrentUsageQuery {
  readonly #deps: CurrentUsageDeps;

  constructor(deps: CurrentUsageDeps) {
    this.#deps = deps;
  }

  async forCustomer(customerId: string): Promise<CurrentUsage> {
    const period = monthPeriod(this.#deps.clock.now());
    let planUsage;
    try {
      planUsage = await readPlanUsage(this.#deps.sql, customerId, period.startsAt);
    } catch (cause) {
      throw new ApiError('current_usage_unavailable', { cause });
    }
    // R18: no active plan, or a plan that hides usage, is the same 403.
    if (!planUsage || !planUsage.usageVisible) throw new ApiError('current_usage_access_denied');
    return {
      period: { startsAt: period.startsAt.toISOString(), endsAt: period.endsAt.toISOString() },
      usage: [
        {
          operation: EVIDENCE_REPORT_OPERATION,
          used: planUsage.used,
          limit: planUsage.limit,
          remaining: Math.max(planUsage.limit - planUsage.used, 0),
        },
      ],
    };
  }
}
