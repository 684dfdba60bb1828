// Plans, subscriptions and the product entitlement for the admin command line (rulings R18,
// R19). A customer's active plan is its one active subscription (a partial unique index
// enforces "one"). The API reads the same rows through caller_facts (step 1), never here.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Plan } from './plan.entity.ts';
import { EVIDENCE_REPORTS_PRODUCT, ProductEntitlement } from './product-entitlement.entity.ts';
import { Subscription } from './subscription.entity.ts';

export class PlanRepository {
  readonly #em: EntityManager;

  constructor(em: EntityManager) {
    this.#em = em;
  }

  /** The plan of the customer's active subscription, or null when there is none. */
  async activePlan(customerId: string): Promise<Plan | null> {
    const subscription = await this.#em.findOne(
      Subscription,
      { customer: customerId, status: 'active' },
      { populate: ['plan'], disableIdentityMap: true },
    );
    return subscription?.plan.getEntity() ?? null;
  }

  /**
   * Ends the active subscription with a direct UPDATE: it must reach the database before a new
   * subscription is inserted, or the partial unique index would see two active ones.
   */
  async endActiveSubscription(customerId: string): Promise<void> {
    await this.#em.nativeUpdate(Subscription, { customer: customerId, status: 'active' }, { status: 'ended', endedAt: new Date() });
  }

  /** Grants or revokes the product; the row is kept when revoked so the decision stays visible (R19). */
  async setEntitlement(customerId: string, active: boolean): Promise<void> {
    const existing = await this.#em.findOne(ProductEntitlement, { customer: customerId, product: EVIDENCE_REPORTS_PRODUCT });
    if (existing) existing.active = active;
    else this.#em.create(ProductEntitlement, { customer: customerId, product: EVIDENCE_REPORTS_PRODUCT, active });
  }
}
