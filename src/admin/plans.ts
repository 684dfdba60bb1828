// plan create (operator-interface.md, ruling R18): a catalogue row with a monthly limit for
// `evidence_report` and whether customers on it may read their usage.
import type { EntityManager } from '@mikro-orm/postgresql';
import { PlanRepository } from '../plans/plan-repository.ts';
import { AdminInputError } from './admin-error.ts';

const PLAN_CODE = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
/** The monthly_limit column is a PostgreSQL integer. */
const MAX_MONTHLY_LIMIT = 2_147_483_647;

interface CreatePlanInput {
  code: string;
  monthlyLimit: number;
  usageVisible: boolean;
}

export function requireMonthlyLimit(limit: number): number {
  if (!Number.isSafeInteger(limit) || limit < 0 || limit > MAX_MONTHLY_LIMIT) {
    throw new AdminInputError(`Invalid --monthly-limit (monthly limit): expected an integer from 0 to ${MAX_MONTHLY_LIMIT}`);
  }
  return limit;
}

export async function createPlan(em: EntityManager, input: CreatePlanInput): Promise<{ planCode: string }> {
  if (!PLAN_CODE.test(input.code)) {
    throw new AdminInputError('Invalid --code (plan code): expected 1 to 64 letters, digits, ".", "_" or "-"');
  }
  const monthlyLimit = requireMonthlyLimit(input.monthlyLimit);
  return em.transactional(async (tx) => {
    const plans = new PlanRepository(tx);
    if (await plans.plan(input.code)) throw new AdminInputError(`Plan already exists: ${input.code}`);
    plans.createPlan({ code: input.code, monthlyLimit, usageVisible: input.usageVisible });
    await tx.flush();
    return { planCode: input.code };
  });
}
