// customer create / activate / deactivate (operator-interface.md). An inactive customer's
// keys are all invalid (ruling R19) and the change applies on the next request (R21).
import type { EntityManager } from '@mikro-orm/postgresql';
import { AccountRepository } from '../accounts/account-repository.ts';
import type { CustomerStatus } from '../accounts/customer.entity.ts';
import { requireCustomer, requireNonBlank } from './lookups.ts';

export async function createCustomer(em: EntityManager, input: { name: string }): Promise<{ customerId: string }> {
  const name = requireNonBlank(input.name, '--name (customer name)');
  return em.transactional(async (tx) => {
    const customer = new AccountRepository(tx).createCustomer(name);
    await tx.flush();
    return { customerId: customer.id };
  });
}

export async function setCustomerStatus(
  em: EntityManager,
  input: { customerId: string; status: CustomerStatus },
): Promise<{ customerId: string; status: CustomerStatus }> {
  return em.transactional(async (tx) => {
    const customer = await requireCustomer(tx, input.customerId);
    new AccountRepository(tx).setCustomerStatus(customer, input.status);
    await tx.flush();
    return { customerId: customer.id, status: customer.status };
  });
}
