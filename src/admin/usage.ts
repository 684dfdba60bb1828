// usage show (operator-interface.md): the month's total and the limit of the active plan, 0
// without one, in the shape of the current-usage response (spec 2.7). The plan and the usage
// come from customer_plan_usage, the same SQL function as the API's, so the rule is written once.
import type { EntityManager } from '@mikro-orm/postgresql';
import { monthPeriod } from '../usage/period.ts';
import { usageItem } from '../usage/plan-usage.ts';
import { UsageRepository } from '../usage/usage-repository.ts';
import { requireCustomer } from './lookups.ts';
import type { Mode } from '../accounts/mode.ts';

interface UsageReport {
  customerId: string;
  period: { startsAt: string; endsAt: string };
  usage: { operation: string; used: number; limit: number; remaining: number }[];
}

/** `month` is any instant inside the UTC month to show (default: now). */
/** `mode`: the live ledger (default) or the test ledger (R53). */
export async function showUsage(em: EntityManager, input: { customerId: string; month?: Date; mode?: Mode }): Promise<UsageReport> {
  const period = monthPeriod(input.month ?? new Date());
  const mode = input.mode ?? 'live';
  const customer = await requireCustomer(em, input.customerId);
  const usage = new UsageRepository(em);
  const planUsage = (await usage.planUsage(customer.id, period, mode)) ?? { limit: 0, used: await usage.used(customer.id, period, mode) };
  return {
    customerId: customer.id,
    period: { startsAt: period.startsAt.toISOString(), endsAt: period.endsAt.toISOString() },
    usage: [usageItem(planUsage)],
  };
}
