// The exact monthly total per customer, operation and mode (rulings R15, R17, R53). Written ONLY by
// the trigger on usage_record (migration "usage counter trigger"), so the quota check reads
// one row instead of summing a month of records. Never write it from the application.
import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { Customer } from '../accounts/customer.entity.ts';
import { MODES } from '../accounts/mode.ts';

export const UsageCounter = defineEntity({
  name: 'UsageCounter',
  tableName: 'usage_counter',
  properties: {
    customer: () => p.manyToOne(Customer).ref().primary(),
    operation: p.text().primary(),
    /** R53: the live and the test ledger of one customer are apart. */
    mode: p.enum(MODES).primary().default('live'),
    /** Start of the UTC calendar month (spec section 8). */
    periodStart: p.datetime().primary(),
    used: p.bigint('number').check('used >= 0'),
  },
});
export type UsageCounter = InferEntity<typeof UsageCounter>;
