// Step 6's second look at the month's usage (spec section 8, R17): the port, and its adapter on
// customer_plan_usage, the SQL function that step 1's one read (caller_facts) calls, so the rule
// of what a month's usage is stays written once.
import type { Mode } from '../accounts/mode.ts';
import { statement, type Sql } from '../db/sql.ts';
import type { MonthPeriod } from './period.ts';
import { planUsageFromRow, type PlanUsage, type PlanUsageRow } from './plan-usage.ts';
import { EVIDENCE_REPORT_OPERATION } from './usage-record.entity.ts';

export interface PlanUsageReader {
  /**
   * The customer's active plan and the usage recorded in `period` on the ledger of `mode`; null
   * without an active plan (R18). Throws PersistenceFailure when the read cannot complete.
   */
  planUsage(customerId: string, period: MonthPeriod, mode: Mode): Promise<PlanUsage | null>;
}

const CUSTOMER_PLAN_USAGE = statement('customer_plan_usage', 'select * from customer_plan_usage($1, $2, $3, $4)');

export class PgPlanUsageReader implements PlanUsageReader {
  readonly #sql: Sql;

  constructor(sql: Sql) {
    this.#sql = sql;
  }

  async planUsage(customerId: string, period: MonthPeriod, mode: Mode): Promise<PlanUsage | null> {
    const [row] = await this.#sql.rows<PlanUsageRow>(CUSTOMER_PLAN_USAGE, [
      customerId,
      EVIDENCE_REPORT_OPERATION,
      period.startsAt.toISOString(),
      mode,
    ]);
    return row ? planUsageFromRow(row) : null;
  }
}
