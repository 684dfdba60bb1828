// Reading usage totals (rulings R15, R17): one primary-key lookup in usage_counter, which
// the trigger keeps equal to the sum of usage_record for that customer, operation and month.
import type { EntityManager } from '@mikro-orm/postgresql';
import { UsageCounter } from '../../usage/usage-counter.entity.ts';

/** Units recorded for the customer and operation in the UTC month starting at periodStart. */
export async function usedInPeriod(
  em: EntityManager,
  customerId: string,
  operation: string,
  periodStart: Date,
): Promise<number> {
  const counter = await em.findOne(
    UsageCounter,
    { customer: customerId, operation, periodStart },
    { fields: ['used'], disableIdentityMap: true },
  );
  return counter?.used ?? 0;
}
