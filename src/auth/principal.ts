// Who is calling, established by API-key authentication (spec section 5), with the facts that
// step 1's one read brought along for later steps to judge (one statement): the product entitlement
// (step 4) and the active plan with the month's usage (step 6, GET usage), read for `period`.
// The fields are CallerFacts' own, so the two cannot drift apart.
import type { CallerFacts } from '../accounts/api-key-directory.ts';
import type { MonthPeriod } from '../usage/period.ts';

/**
 * The caller's key and customer, its mode (R53: everything the request reads and writes is in
 * this mode) and the facts of steps 4 and 6, as read by step 1.
 */
export interface Principal extends Pick<CallerFacts, 'customerId' | 'apiKeyId' | 'mode' | 'entitled' | 'planUsage'> {
  /** The UTC month the facts were read for (spec section 8). */
  readonly period: MonthPeriod;
  /**
   * The instant step 1 read the facts at, in `period`: the request's one reading of the clock
   * for its month. The quota is judged in that month (step 6) and the usage unit is dated at
   * that instant (steps 9-10), so a request whose body arrives after midnight at the end of a
   * month is judged and counted in the same month (R17), never judged in one and billed in the
   * next.
   */
  readonly at: Date;
}
