// A customer's active plan and the month's usage (spec 2.7 and section 8, rulings R17, R18):
// the one shape in which both the quota check (step 6) and the usage read see them, and the one
// place where what remains is computed. Read by the SQL function customer_plan_usage
// (Migration20261123000100_one_read_of_caller_facts), through caller_facts on the API's path
// and through UsageRepository for the admin command line.
import { EVIDENCE_REPORT_OPERATION } from './usage-record.entity.ts';

export interface PlanUsage {
  /** The active plan's monthly limit for `evidence_report`. */
  readonly limit: number;
  /** R18: false hides usage from GET /v1/usage/current. */
  readonly usageVisible: boolean;
  /** Units recorded in the month (R17). */
  readonly used: number;
}

/** Spec 2.7: `max(limit - used, 0)`; never negative, even after concurrent requests shared the last unit (R17). */
export function remainingUnits(planUsage: Pick<PlanUsage, 'limit' | 'used'>): number {
  return Math.max(planUsage.limit - planUsage.used, 0);
}

/** One item of a usage answer (spec 2.7), for the API and `usage show` alike. */
export function usageItem(planUsage: Pick<PlanUsage, 'limit' | 'used'>) {
  return {
    operation: EVIDENCE_REPORT_OPERATION as typeof EVIDENCE_REPORT_OPERATION,
    used: planUsage.used,
    limit: planUsage.limit,
    remaining: remainingUnits(planUsage),
  };
}

/** The row of customer_plan_usage (and of caller_facts' plan columns). */
export interface PlanUsageRow {
  monthly_limit: number | null;
  usage_visible: boolean | null;
  used: string | number | null;
}

export function planUsageFromRow(row: PlanUsageRow): PlanUsage {
  return { limit: Number(row.monthly_limit), usageVisible: row.usage_visible === true, used: Number(row.used ?? 0) };
}
