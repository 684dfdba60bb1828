// Usage records are the source of truth for `used` (spec 2.7). A unit always belongs to
// one report and a report has at most one unit (ruling R15), hence the unique report_id.
// The monthly total lives in usage_counter, kept exact by a trigger on this table.
import { randomUUID } from 'node:crypto';
import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { Customer } from '../accounts/customer.entity.ts';
import { EvidenceReport } from '../reports/evidence-report.entity.ts';
import { MODES } from '../accounts/mode.ts';

/** The only billable operation today (spec section 1). */
export const EVIDENCE_REPORT_OPERATION = 'evidence_report';

export const UsageRecord = defineEntity({
  name: 'UsageRecord',
  tableName: 'usage_record',
  properties: {
    id: p.uuid().primary().onCreate(() => randomUUID()),
    customer: () => p.manyToOne(Customer).ref(),
    operation: p.text(),
    units: p.integer().check('units > 0'),
    // restrict: a report with a usage unit cannot disappear from under it (R15).
    report: () => p.manyToOne(EvidenceReport).ref().nullable().unique().deleteRule('restrict'),
    occurredAt: p.datetime().onCreate(() => new Date()).defaultRaw('now()'),
    /** R53: a test unit is on the test ledger, never the live one. */
    mode: p.enum(MODES).default('live'),
  },
  indexes: [
    {
      name: 'usage_record_customer_id_operation_occurred_at_index',
      properties: ['customer', 'operation', 'occurredAt'],
    },
  ],
});
export type UsageRecord = InferEntity<typeof UsageRecord>;
