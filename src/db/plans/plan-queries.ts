// A customer's active plan is its one active subscription (ruling R18).
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Plan } from '../../plans/plan.entity.ts';
import { Subscription } from '../../plans/subscription.entity.ts';

/** The plan of the customer's active subscription, or null when there is none. */
export async function findActivePlan(em: EntityManager, customerId: string): Promise<Plan | null> {
  const subscription = await em.findOne(
    Subscription,
    { customer: customerId, status: 'active' },
    { populate: ['plan'], disableIdentityMap: true },
  );
  return subscription?.plan.getEntity() ?? null;
}
