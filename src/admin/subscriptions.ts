// subscribe / unsubscribe (operator-interface.md, ruling R18): a customer's active plan is
// its one active subscription; the partial unique index on subscription enforces "one".
import type { EntityManager } from '@mikro-orm/postgresql';
import { Subscription } from '../plans/subscription.entity.ts';
import { requireCustomer, requirePlan } from './lookups.ts';

// Ends the active subscription with a direct UPDATE: it must reach the database before the
// new row is inserted, or the partial unique index would see two active subscriptions.
async function endActiveSubscription(tx: EntityManager, customerId: string): Promise<void> {
  await tx.nativeUpdate(Subscription, { customer: customerId, status: 'active' }, { status: 'ended', endedAt: new Date() });
}

export async function subscribe(
  em: EntityManager,
  input: { customerId: string; planCode: string },
): Promise<{ customerId: string; planCode: string }> {
  return em.transactional(async (tx) => {
    const customer = await requireCustomer(tx, input.customerId);
    const plan = await requirePlan(tx, input.planCode);
    const active = await tx.findOne(Subscription, { customer, status: 'active' });
    // Already on that plan: nothing to change, the period's usage stays where it is.
    if (active?.plan.unwrap().code !== plan.code) {
      await endActiveSubscription(tx, customer.id);
      tx.create(Subscription, { customer, plan });
      await tx.flush();
    }
    return { customerId: customer.id, planCode: plan.code };
  });
}

export async function unsubscribe(em: EntityManager, input: { customerId: string }): Promise<{ customerId: string }> {
  return em.transactional(async (tx) => {
    const customer = await requireCustomer(tx, input.customerId);
    await endActiveSubscription(tx, customer.id);
    return { customerId: customer.id };
  });
}
