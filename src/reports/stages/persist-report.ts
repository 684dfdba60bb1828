// Steps 9 and 10: the report and its usage unit, with the idempotency completion, in one
// transaction (ruling R15). A claim lost to a takeover (our lease ran out) rolls everything back
// (503 idempotency_unavailable): the request that took the key over makes the one report.
import { randomUUID } from 'node:crypto';
import { PersistenceFailure } from '../../db/persistence-failure.ts';
import { storableValue } from '../../db/storable.ts';
import { ApiError, type ErrorCode } from '../../errors/catalogue.ts';
import type { Mode } from '../../accounts/mode.ts';
import type { ReportResult } from '../../generation/report-generator.ts';
import type { IdempotencyCompletion } from '../../idempotency/idempotency-store.ts';
import type { AcceptedImage } from '../../images/image-set.ts';
import type { StoredImageMetadata } from '../evidence-report.entity.ts';
import type { ReportRecord, ReportRepository } from '../report-repository.ts';
import type { CreateEvidenceReportRequest } from '../report-request.ts';
import type { GeneratedReport } from './generate-report.ts';
import { REQUESTED_UNITS } from './check-quota.ts';

const CODES = {
  unavailable: 'evidence_report_write_failed',
  report_not_written: 'evidence_report_write_failed',
  usage_not_recorded: 'usage_recording_failed',
  claim_lost: 'idempotency_unavailable',
} as const satisfies Record<PersistenceFailure['kind'], ErrorCode>;

interface PersistInput {
  customerId: string;
  /** R53: the report and its unit are stored in the key's mode. */
  mode: Mode;
  apiKeyId: string;
  requestId: string;
  request: CreateEvidenceReportRequest;
  /** What is kept of the images (imageMetadata). */
  images: readonly StoredImageMetadata[];
  generated: GeneratedReport;
  idempotency: IdempotencyCompletion | undefined;
  now: Date;
}

export interface StoredReport {
  readonly reportId: string;
  /** As stored: the 201 body is built from exactly this value, so a replay returns it unchanged. */
  readonly result: ReportResult;
}

/**
 * What is kept of the images (R38): per image the original's sha256, size, type and pixel size
 * and the normalized form's size, type and pixel size, field by field: never bytes or URLs.
 */
export function imageMetadata(images: readonly AcceptedImage[]): StoredImageMetadata[] {
  return images.map(({ index, original, normalized }) => ({
    index,
    original: { sha256: original.sha256, sizeBytes: original.sizeBytes, mimeType: original.mimeType, width: original.width, height: original.height },
    normalized: { sizeBytes: normalized.sizeBytes, mimeType: normalized.mimeType, width: normalized.width, height: normalized.height },
  }));
}

export async function persistReport(reports: ReportRepository, input: PersistInput): Promise<StoredReport> {
  const { generation } = input.generated;
  const result = storableValue(input.generated.result);
  const record: ReportRecord = {
    reportId: randomUUID(),
    customerId: input.customerId,
    mode: input.mode,
    apiKeyId: input.apiKeyId,
    requestId: input.requestId,
    context: input.request.context,
    language: input.request.language ?? null,
    input: input.request,
    images: input.images,
    result,
    generator: generation.generator,
    model: generation.model,
    generationMs: generation.latencyMs,
    tokenUsage: generation.tokenUsage,
    tokens: generation.tokens,
    at: input.now,
    usageId: randomUUID(),
    units: REQUESTED_UNITS,
    idempotency: input.idempotency,
  };
  try {
    await reports.record(record);
  } catch (cause) {
    if (cause instanceof PersistenceFailure) throw new ApiError(CODES[cause.kind], { cause });
    throw cause;
  }
  return { reportId: record.reportId, result };
}
