// What a customer leaves in the database, for tests that prove a request wrote nothing, and a
// way to put usage into any month without going through the API.
import { randomUUID } from 'node:crypto';
import { countCustomerRows, testEm } from './database.ts';

/**
 * The customer's rows per table (countCustomerRows), the month totals of usage_counter and the
 * customer's rate-limit counter: equal before and after means nothing was written for it.
 */
export async function customerFootprint(customerId: string): Promise<Record<string, unknown>> {
  const em = await testEm();
  // rate-limiter-flexible keys are `<prefix>:<customerId>`.
  const rateLimit = await em.execute<{ key: string; points: number }[]>(
    'select key, points from rate_limit_counter where key like ? order by key',
    [`%${customerId}`],
  );
  const counters = await em.execute<{ operation: string; period_start: Date; used: string }[]>(
    'select operation, period_start, used from usage_counter where customer_id = ? order by period_start',
    [customerId],
  );
  return { rows: await countCustomerRows(customerId, em), rateLimit, counters: counters.map((c) => ({ ...c, used: String(c.used) })) };
}

/** A usage record written directly (no report), at any instant: the trigger counts it (R17). */
export async function insertUsageRecord(customerId: string, occurredAt: string, units = 1): Promise<void> {
  await (await testEm()).execute(
    `insert into usage_record (id, customer_id, operation, units, occurred_at) values (?, ?, 'evidence_report', ?, ?)`,
    [randomUUID(), customerId, units, occurredAt],
  );
}
