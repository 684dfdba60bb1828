// entitlement grant / revoke (operator-interface.md): the row of product `evidence_reports`
// (ruling R19), kept when revoked so the decision is visible, read on every request (R21).
import type { EntityManager } from '@mikro-orm/postgresql';
import { PlanRepository } from '../plans/plan-repository.ts';
import { requireCustomer } from './lookups.ts';

export async function setEntitlement(
  em: EntityManager,
  input: { customerId: string; entitled: boolean },
): Promise<{ customerId: string; entitled: boolean }> {
  return em.transactional(async (tx) => {
    const customer = await requireCustomer(tx, input.customerId, { forUpdate: true });
    await new PlanRepository(tx).setEntitlement(customer.id, input.entitled);
    await tx.flush();
    return { customerId: customer.id, entitled: input.entitled };
  });
}
