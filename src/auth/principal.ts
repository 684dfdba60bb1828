// Who is calling, established by API-key authentication (spec section 5), with the facts that
// step 1's one read brought along for later steps to judge (issue 11): the product entitlement
// (step 4) and the active plan with the month's usage (step 6, GET usage), read for `period`.
import type { Fact } from '../accounts/api-key-directory.ts';
import type { MonthPeriod } from '../usage/period.ts';
import type { PlanUsage } from '../usage/plan-usage.ts';

export interface Principal {
  readonly customerId: string;
  readonly apiKeyId: string;
  /** The UTC month the facts were read for (spec section 8). */
  readonly period: MonthPeriod;
  readonly entitled: Fact<boolean>;
  readonly planUsage: Fact<PlanUsage | null>;
}
