// bootstrap (operator-interface.md): customer + its own plan and active subscription +
// entitlement + one key, in one transaction, for a customer ready to call the API.
import { randomBytes } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { AccountRepository, type CreatedKey } from '../accounts/account-repository.ts';
import { PlanRepository } from '../plans/plan-repository.ts';
import { AdminInputError } from './admin-error.ts';
import { requireMode } from './keys.ts';
import { requireMonthlyLimit } from './plans.ts';
import { requireNonBlank } from './lookups.ts';

const DEFAULT_MONTHLY_LIMIT = 1000;

export interface BootstrapInput {
  name: string;
  /** Default 1000. */
  monthlyLimit?: number;
  /** Plan with usageVisible false (ruling R18). */
  usageHidden?: boolean;
  noPlan?: boolean;
  noEntitlement?: boolean;
  /** The mode of the one key (R53): live (default) or test. */
  mode?: string;
}

interface BootstrapResult extends CreatedKey {
  customerId: string;
}

export async function bootstrap(em: EntityManager, input: BootstrapInput): Promise<BootstrapResult> {
  const name = requireNonBlank(input.name, '--name (customer name)');
  if (input.noPlan && (input.monthlyLimit !== undefined || input.usageHidden)) {
    throw new AdminInputError('--monthly-limit and --usage-hidden describe a plan; they cannot go with --no-plan');
  }
  const monthlyLimit = requireMonthlyLimit(input.monthlyLimit ?? DEFAULT_MONTHLY_LIMIT);
  const mode = requireMode(input.mode);
  return em.transactional(async (tx) => {
    const accounts = new AccountRepository(tx);
    const plans = new PlanRepository(tx);
    const customer = accounts.createCustomer(name);
    if (!input.noPlan) {
      // A plan of its own: changing this customer's limit later touches no one else.
      const plan = plans.createPlan({
        code: `bootstrap-${randomBytes(4).toString('hex')}`,
        monthlyLimit,
        usageVisible: !input.usageHidden,
      });
      plans.subscribe(customer, plan);
    }
    if (!input.noEntitlement) plans.grantNewCustomer(customer);
    const key = accounts.addKey(customer, null, mode);
    await tx.flush();
    return { customerId: customer.id, ...key };
  });
}
