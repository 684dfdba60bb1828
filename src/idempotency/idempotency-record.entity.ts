// Idempotency claims and completed results (rulings R12, R14). The scope is customer +
// product + operation + key (R12), so two keys of one customer share it, within a mode: test
// keys have a namespace of their own (R53).
import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { Customer } from '../accounts/customer.entity.ts';
import { MODES } from '../accounts/mode.ts';
import { EvidenceReport } from '../reports/evidence-report.entity.ts';

const IDEMPOTENCY_STATUSES = ['in_progress', 'completed'] as const;

export const IdempotencyRecord = defineEntity({
  name: 'IdempotencyRecord',
  tableName: 'idempotency_record',
  properties: {
    customer: () => p.manyToOne(Customer).ref().primary(),
    product: p.text().primary(),
    operation: p.text().primary(),
    /** R53: test keys have an idempotency namespace of their own. */
    mode: p.enum(MODES).primary().default('live'),
    idempotencyKey: p.text().primary(),
    /** Hex SHA-256 of method, path and canonical body (R12). */
    fingerprint: p.character().length(64),
    status: p.enum(IDEMPOTENCY_STATUSES),
    /** A claim whose lease has passed may be taken over (R14). */
    leaseExpiresAt: p.datetime(),
    report: () => p.manyToOne(EvidenceReport).ref().nullable().index(),
    createdAt: p.datetime().onCreate(() => new Date()).defaultRaw('now()'),
    completedAt: p.datetime().nullable(),
    /** Completed keys replay until then, then may be reused (R14). */
    expiresAt: p.datetime().nullable().index(),
  },
  // The sweep of abandoned claims (R36) reads only claims in progress.
  indexes: [{ name: 'idempotency_record_claim_lease_index', properties: ['leaseExpiresAt'], where: "status = 'in_progress'" }],
});
export type IdempotencyRecord = InferEntity<typeof IdempotencyRecord>;
