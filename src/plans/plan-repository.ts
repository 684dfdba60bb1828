// Plans, subscriptions and the product entitlement as the admin command line changes them
// (rulings R18, R19). A customer's active plan is its one active subscription (a partial unique
// index enforces "one"). The request path reads the same rows in one statement through
// caller_facts (accounts/caller-facts.sql); every write to these tables is here.
//
// Methods add to the unit of work of the EntityManager they were given; the caller owns the
// transaction and flushes.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Customer } from '../accounts/customer.entity.ts';
import { Plan } from './plan.entity.ts';
import { EVIDENCE_REPORTS_PRODUCT, ProductEntitlement } from './product-entitlement.entity.ts';
import { Subscription } from './subscription.entity.ts';

export class PlanRepository {
  readonly #em: EntityManager;

  constructor(em: EntityManager) {
    this.#em = em;
  }

  async plan(code: string): Promise<Plan | null> {
    return this.#em.findOne(Plan, code);
  }

  createPlan(plan: { code: string; monthlyLimit: number; usageVisible: boolean }): Plan {
    return this.#em.create(Plan, plan);
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

  /** A new active subscription; end the current one first (endActiveSubscription). */
  subscribe(customer: Customer, plan: Plan): void {
    this.#em.create(Subscription, { customer, plan });
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

  /** The entitlement row of a new customer (no read needed: it has none yet). */
  grantNewCustomer(customer: Customer): void {
    this.#em.create(ProductEntitlement, { customer, product: EVIDENCE_REPORTS_PRODUCT, active: true });
  }
}
