// Look-ups that turn an operator's identifier into a row, or a one-line AdminInputError.
import type { EntityManager } from '@mikro-orm/postgresql';
import { ApiKey } from '../accounts/api-key.entity.ts';
import { Customer } from '../accounts/customer.entity.ts';
import { Plan } from '../plans/plan.entity.ts';
import { AdminInputError } from './admin-error.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

// A malformed id is as unknown as a missing one, and must not reach the uuid column (the
// database would answer with an error that is not about the operator's input).
export async function requireCustomer(em: EntityManager, customerId: string): Promise<Customer> {
  const customer = UUID.test(customerId) ? await em.findOne(Customer, customerId) : null;
  if (!customer) throw new AdminInputError(`Unknown customer: ${customerId}`);
  return customer;
}

export async function requireApiKey(em: EntityManager, apiKeyId: string): Promise<ApiKey> {
  const key = UUID.test(apiKeyId) ? await em.findOne(ApiKey, apiKeyId) : null;
  if (!key) throw new AdminInputError(`Unknown key: ${apiKeyId}`);
  return key;
}

export async function requirePlan(em: EntityManager, code: string): Promise<Plan> {
  const plan = await em.findOne(Plan, code);
  if (!plan) throw new AdminInputError(`Unknown plan: ${code}`);
  return plan;
}

export function requireNonBlank(value: string, what: string, maxLength = 200): string {
  if (value.trim() === '' || value.length > maxLength) {
    throw new AdminInputError(`Invalid ${what}: expected 1 to ${maxLength} characters, not only spaces`);
  }
  return value;
}
