// The persistence port of steps 9 and 10 (ruling R15): the report, its usage unit and (with a
// key) the idempotency completion are written together or not at all. Adapters:
// PgReportRepository (one statement, one transaction) and FakeReportRepository.
import type { GenerationTokens, TokenUsage } from '../generation/report-generator.ts';
import type { IdempotencyCompletion } from '../idempotency/idempotency-store.ts';
import type { ReportResult } from '../generation/report-generator.ts';
import type { StoredImageMetadata } from './evidence-report.entity.ts';
import type { Mode } from '../accounts/mode.ts';

/** One completed report and what commits with it: named fields, so nothing can be swapped. */
export interface ReportRecord {
  readonly reportId: string;
  readonly customerId: string;
  /** R53: live or test; the unit goes on that mode's ledger. */
  readonly mode: Mode;
  readonly apiKeyId: string;
  readonly requestId: string;
  readonly context: string;
  readonly language: string | null;
  /** The request as validated, kept and never exposed (spec 2.2). */
  readonly input: unknown;
  /** Metadata only: never bytes, never URLs (R22). */
  readonly images: readonly StoredImageMetadata[];
  /** Already storable: the 201 body is built from exactly this value. */
  readonly result: ReportResult;
  readonly generator: string;
  /** R42: the model that answered, or 'offline'. */
  readonly model: string | null;
  readonly generationMs: number;
  readonly tokenUsage: TokenUsage | null;
  /** R43: input, output and thinking tokens, each in a column of its own. */
  readonly tokens: GenerationTokens;
  readonly at: Date;
  /** Step 10: the usage unit. */
  readonly usageId: string;
  readonly units: number;
  readonly idempotency: IdempotencyCompletion | undefined;
}

export interface ReportRepository {
  /**
   * Writes the report, its unit and the completion in one transaction. Throws PersistenceFailure:
   * 'report_not_written', 'usage_not_recorded' or 'claim_lost' (the claim was taken over after
   * our lease ran out), after which nothing of the attempt remains; or 'unavailable': the
   * statement never ran, or its answer was lost (then the transaction may have committed whole).
   */
  record(record: ReportRecord): Promise<void>;
}
