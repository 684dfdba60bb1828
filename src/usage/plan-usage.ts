// One round trip for what both the quota check (step 6) and the usage read need: the active
// plan's monthly limit and visibility, and the month's exact total from usage_counter (kept in
// the same transaction as every usage record by a trigger, rulings R15 and R17), so the read
// costs the same at zero and at a million records.
import { statement, type Sql } from '../db/sql.ts';
import { EVIDENCE_REPORT_OPERATION } from './usage-record.entity.ts';


export interface PlanUsage {
  limit: number;
  usageVisible: boolean;
  used: number;
}

interface Row {
  monthly_limit: number;
  usage_visible: boolean;
  used: string | number;
}

const QUERY = statement(
  'plan_usage',
  `select p.monthly_limit, p.usage_visible, coalesce(u.used, 0) as used
  from subscription s
  join plan p on p.code = s.plan_code
  left join usage_counter u
    on u.customer_id = s.customer_id and u.operation = $1 and u.period_start = $2
  where s.customer_id = $3 and s.status = 'active'`,
);

/** Undefined when the customer has no active subscription (ruling R18). */
export async function readPlanUsage(sql: Sql, customerId: string, periodStart: Date): Promise<PlanUsage | undefined> {
  const rows = await sql.rows<Row>(QUERY, [EVIDENCE_REPORT_OPERATION, periodStart.toISOString(), customerId]);
  const row = rows[0];
  if (!row) return undefined;
  return { limit: Number(row.monthly_limit), usageVisible: row.usage_visible, used: Number(row.used) };
}
