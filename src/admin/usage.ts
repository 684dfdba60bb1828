// usage show (operator-interface.md): the month's total from usage_counter and the limit of
// the active plan, 0 without one, in the shape of the current-usage response (spec 2.7).
import type { EntityManager } from '@mikro-orm/postgresql';
import { findActivePlan } from '../db/plans/plan-queries.ts';
import { EVIDENCE_REPORT_OPERATION } from '../usage/usage-record.entity.ts';
import { usedInPeriod } from '../db/usage/usage-queries.ts';
import { monthPeriod } from '../usage/period.ts';
import { requireCustomer } from './lookups.ts';

export interface UsageReport {
  customerId: string;
  period: { startsAt: string; endsAt: string };
  usage: { operation: string; used: number; limit: number; remaining: number }[];
}

/** `month` is any instant inside the UTC month to show (default: now). */
export async function showUsage(em: EntityManager, input: { customerId: string; month?: Date }): Promise<UsageReport> {
  const period = monthPeriod(input.month ?? new Date());
  const customer = await requireCustomer(em, input.customerId);
  const plan = await findActivePlan(em, customer.id);
  const used = await usedInPeriod(em, customer.id, EVIDENCE_REPORT_OPERATION, period.startsAt);
  const limit = plan?.monthlyLimit ?? 0;
  return {
    customerId: customer.id,
    period: { startsAt: period.startsAt.toISOString(), endsAt: period.endsAt.toISOString() },
    usage: [{ operation: EVIDENCE_REPORT_OPERATION, used, limit, remaining: Math.max(limit - used, 0) }],
  };
}
