// Look-ups that turn an operator's identifier into a row, or a one-line AdminInputError.
import type { EntityManager } from '@mikro-orm/postgresql';
import { AccountRepository } from '../accounts/account-repository.ts';
import type { ApiKey } from '../accounts/api-key.entity.ts';
import type { Customer } from '../accounts/customer.entity.ts';
import type { Plan } from '../plans/plan.entity.ts';
import { PlanRepository } from '../plans/plan-repository.ts';
import { AdminInputError } from './admin-error.ts';

export async function requireCustomer(em: EntityManager, customerId: string, options: { forUpdate?: boolean } = {}): Promise<Customer> {
  const customer = await new AccountRepository(em).customer(customerId, options);
  if (!customer) throw new AdminInputError(`Unknown customer: ${customerId}`);
  return customer;
}

export async function requireApiKey(em: EntityManager, apiKeyId: string, options: { forUpdate?: boolean } = {}): Promise<ApiKey> {
  const key = await new AccountRepository(em).apiKey(apiKeyId, options);
  if (!key) throw new AdminInputError(`Unknown key: ${apiKeyId}`);
  return key;
}

export async function requirePlan(em: EntityManager, code: string): Promise<Plan> {
  const plan = await new PlanRepository(em).plan(code);
  if (!plan) throw new AdminInputError(`Unknown plan: ${code}`);
  return plan;
}

export function requireNonBlank(value: string, what: string, maxLength = 200): string {
  if (value.trim() === '' || value.length > maxLength) {
    throw new AdminInputError(`Invalid ${what}: expected 1 to ${maxLength} characters, not only spaces`);
  }
  return value;
}
