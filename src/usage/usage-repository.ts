// Usage reads of the admin command line (`usage show`): the active plan and a month's usage
// through customer_plan_usage, the same SQL function that step 1's one read calls (caller_facts),
// so the rule is written once.
import type { EntityManager } from '@mikro-orm/postgresql';
import { planUsageFromRow, type PlanUsage, type PlanUsageRow } from './plan-usage.ts';
import type { MonthPeriod } from './period.ts';
import { EVIDENCE_REPORT_OPERATION } from './usage-record.entity.ts';
import type { Mode } from '../accounts/mode.ts';

export class UsageRepository {
  readonly #em: EntityManager;

  constructor(em: EntityManager) {
    this.#em = em;
  }

  /** The active plan and the period's usage; null without an active plan (R18). */
  async planUsage(customerId: string, period: MonthPeriod, mode: Mode = 'live'): Promise<PlanUsage | null> {
    const rows = await this.#em.execute<PlanUsageRow[]>('select * from customer_plan_usage(?, ?, ?, ?)', [
      customerId,
      EVIDENCE_REPORT_OPERATION,
      period.startsAt.toISOString(),
      mode,
    ]);
    return rows[0] ? planUsageFromRow(rows[0]) : null;
  }

  /** Units recorded in the period on the ledger of `mode` (R53), whatever the plan. */
  async used(customerId: string, period: MonthPeriod, mode: Mode = 'live'): Promise<number> {
    const rows = await this.#em.execute<{ used: string }[]>(
      'select coalesce(sum(used), 0) as used from usage_counter where customer_id = ? and operation = ? and mode = ? and period_start = ?',
      [customerId, EVIDENCE_REPORT_OPERATION, mode, period.startsAt.toISOString()],
    );
    return Number(rows[0]?.used ?? 0);
  }
}
