// subscribe / unsubscribe (operator-interface.md, ruling R18): a customer's active plan is
// its one active subscription; the partial unique index on subscription enforces "one", and the
// customer's row, locked first, serializes two changes at once (both succeed, one stays active).
import type { EntityManager } from '@mikro-orm/postgresql';
import { PlanRepository } from '../plans/plan-repository.ts';
import { requireCustomer, requirePlan } from './lookups.ts';

export async function subscribe(
  em: EntityManager,
  input: { customerId: string; planCode: string },
): Promise<{ customerId: string; planCode: string }> {
  return em.transactional(async (tx) => {
    const customer = await requireCustomer(tx, input.customerId, { forUpdate: true });
    const plan = await requirePlan(tx, input.planCode);
    const plans = new PlanRepository(tx);
    // Already on that plan: nothing to change, the period's usage stays where it is.
    if ((await plans.activePlan(customer.id))?.code !== plan.code) {
      await plans.endActiveSubscription(customer.id);
      plans.subscribe(customer, plan);
      await tx.flush();
    }
    return { customerId: customer.id, planCode: plan.code };
  });
}

export async function unsubscribe(em: EntityManager, input: { customerId: string }): Promise<{ customerId: string }> {
  return em.transactional(async (tx) => {
    const customer = await requireCustomer(tx, input.customerId, { forUpdate: true });
    await new PlanRepository(tx).endActiveSubscription(customer.id);
    return { customerId: customer.id };
  });
}
