// A completed evidence report (spec step 9). Only completed reports are stored: the
// report and its usage unit commit in one transaction (ruling R15).
import { randomUUID } from 'node:crypto';
import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { Customer } from '../accounts/customer.entity.ts';
import { ApiKey } from '../accounts/api-key.entity.ts';
import { MODES } from '../accounts/mode.ts';

/** What is kept of a fetched image (R38): facts of the original and of its normalized form, never bytes or URLs. */
export interface StoredImageMetadata {
  index: number;
  original: { sha256: string; sizeBytes: number; mimeType: string; width: number; height: number };
  normalized: { sizeBytes: number; mimeType: string; width: number; height: number };
}

export const EvidenceReport = defineEntity({
  name: 'EvidenceReport',
  tableName: 'evidence_report',
  properties: {
    id: p.uuid().primary().onCreate(() => randomUUID()),
    customer: () => p.manyToOne(Customer).ref(),
    apiKey: () => p.manyToOne(ApiKey).ref().index(),
    requestId: p.text(),
    context: p.text(),
    language: p.text().nullable(),
    input: p.json<Record<string, unknown>>(),
    images: p.json<StoredImageMetadata[]>(),
    result: p.json<Record<string, unknown>>(),
    generator: p.text(),
    model: p.text().nullable(),
    generationMs: p.integer(),
    tokenUsage: p.json<Record<string, unknown>>().nullable(),
    // R43: null for reports stored before they were counted.
    tokensInput: p.integer().nullable().check('tokens_input >= 0'),
    tokensOutput: p.integer().nullable().check('tokens_output >= 0'),
    tokensThinking: p.integer().nullable().check('tokens_thinking >= 0'),
    createdAt: p.datetime().onCreate(() => new Date()).defaultRaw('now()'),
    /** R53, R54: the mode of the key that created it; read back only in that mode. */
    mode: p.enum(MODES).default('live'),
  },
  indexes: [{ name: 'evidence_report_customer_id_created_at_index', properties: ['customer', 'createdAt'] }],
});
export type EvidenceReport = InferEntity<typeof EvidenceReport>;
