// Steps 9 and 10 (ruling R15): the report, its usage unit and the idempotency completion
// commit in ONE transaction, so a stored report always has its unit and a unit its report.
// It is one statement, a database function, so the whole write is one round trip; the
// usage_counter total is kept by a trigger in that same transaction (R17).
// No connection is taken before this point (ruling R16).
import { randomUUID } from 'node:crypto';
import { statement, type Sql } from '../db/sql.ts';
import type { GenerationOutput, ReportResult } from '../generation/report-generator.ts';
import { ApiError, type ErrorCode } from '../errors/catalogue.ts';
import { storableJson, storableText } from '../db/storable.ts';
import type { Principal } from '../auth/principal.ts';
import type { IdempotencyCompletion } from '../idempotency/idempotency-store.ts';
import type { CreateEvidenceReportRequest, ImageMetadata } from './pipeline-state.ts';

export interface CompletedReport {
  readonly principal: Principal;
  readonly requestId: string;
  readonly request: CreateEvidenceReportRequest;
  readonly images: readonly ImageMetadata[];
  readonly generation: GenerationOutput;
  /** Already storable (storableValue): the 201 body is built from exactly this value. */
  readonly result: ReportResult;
  readonly now: Date;
}

// One statement, one transaction (ruling R15): see Migration20261121000200_record_evidence_report.
const RECORD = statement(
  'record_evidence_report',
  `select record_evidence_report($1, $2, $3, $4, $5, $6, $7::jsonb, $8::jsonb, $9::jsonb, $10, $11, $12, $13::jsonb, $14, $15,
    $16, $17, $18)`,
);
const SELECT_RESULT = statement('report_result', `select result from evidence_report where id = $1 and customer_id = $2`);

// SQLSTATEs raised by record_evidence_report for each of its writes.
const FAILURES: Record<string, ErrorCode> = {
  ER001: 'evidence_report_write_failed',
  ER002: 'usage_recording_failed',
  ER003: 'idempotency_unavailable',
};

function failureCode(cause: unknown): ErrorCode {
  const code = (cause as { code?: unknown }).code;
  const sqlState = typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) ? code : undefined;
  if (sqlState === undefined || sqlState.startsWith('08')) {
    // No answer from the server, or no connection: the statement did not run, nothing was written.
    return 'evidence_report_write_failed';
  }
  // A server error outside the function's own blocks comes after its writes, at the end of the
  // transaction (a deferred constraint, a serialization failure): R15 counts the commit as usage.
  return FAILURES[sqlState] ?? 'usage_recording_failed';
}

export class ReportStore {
  readonly #sql: Sql;

  constructor(sql: Sql) {
    this.#sql = sql;
  }

  /**
   * Stores the report, its unit and (with a key) the idempotency completion in one statement.
   * Throws evidence_report_write_failed when the report cannot be written (or the statement
   * cannot run at all), usage_recording_failed when the unit cannot, idempotency_unavailable when
   * the claim was taken over; in every case nothing of the attempt remains.
   */
  async persist(report: CompletedReport, completion?: IdempotencyCompletion): Promise<string> {
    const id = randomUUID();
    const at = report.now.toISOString();
    const params = [
      ...reportRow(id, at, report),
      randomUUID(),
      completion?.key ?? null,
      completion?.leaseExpiresAt ?? null,
      completion?.expiresAt ?? null,
    ];
    try {
      await this.#sql.rows(RECORD, params);
    } catch (cause) {
      throw new ApiError(failureCode(cause), { cause });
    }
    return id;
  }

  /** The stored result of a report, for an idempotent replay; undefined when it is gone. */
  async loadResult(customerId: string, reportId: string): Promise<unknown> {
    const rows = await this.#sql.rows<{ result: unknown }>(SELECT_RESULT, [reportId, customerId]);
    return rows[0]?.result;
  }
}

function reportRow(id: string, at: string, report: CompletedReport): unknown[] {
  const { principal, request, generation } = report;
  // Image metadata only (R38): per image the original's sha256, size, type and pixel size, and the
  // normalized form's size, type and pixel size. Never bytes, URLs or anything else of the fetch.
  const images = report.images.map(({ index, original, normalized }) => ({
    index,
    original: {
      sha256: original.sha256,
      sizeBytes: original.sizeBytes,
      mimeType: original.mimeType,
      width: original.width,
      height: original.height,
    },
    normalized: { sizeBytes: normalized.sizeBytes, mimeType: normalized.mimeType, width: normalized.width, height: normalized.height },
  }));
  return [
    id,
    principal.customerId,
    principal.apiKeyId,
    report.requestId,
    request.context,
    request.language === undefined ? null : storableText(request.language),
    storableJson(request),
    JSON.stringify(images),
    JSON.stringify(report.result),
    generation.generator,
    generation.model,
    Math.round(generation.latencyMs),
    generation.tokenUsage === null ? null : JSON.stringify(generation.tokenUsage),
    at,
  ];
}
