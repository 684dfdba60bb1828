// Step 8: generation through the ReportGenerator port, then the result checked against the
// contract's result schema before anything is stored (ruling R24). Failures map as R24 sorts
// them; nothing of the provider reaches the response.
import { ApiError } from '../../errors/catalogue.ts';
import { GenerationError, type GenerationOutput, type ReportGenerator, type ReportResult } from '../../generation/report-generator.ts';
import type { ResultValidator } from '../../generation/result-schema.ts';
import type { NormalizedBytes } from '../../images/image-normalizer.ts';
import type { Telemetry } from '../../observability/telemetry.ts';
import type { CreateEvidenceReportRequest } from '../report-request.ts';
import { waitingOutside } from '../../shared/outside-wait.ts';

const CODES = {
  unavailable: 'report_generation_unavailable',
  failed: 'report_generation_failed',
  invalid: 'invalid_generated_report',
} as const;

export interface GeneratedReport {
  readonly generation: GenerationOutput;
  /** The candidate, checked against the contract (R24). */
  readonly result: ReportResult;
}

export async function generateReport(
  generator: ReportGenerator,
  validateResult: ResultValidator,
  request: CreateEvidenceReportRequest,
  /** Normalized images only (R38): their owner, the use case, frees them after this step (R39). */
  images: readonly NormalizedBytes[],
  signal: AbortSignal,
  telemetry: Pick<Telemetry, 'generation'>,
): Promise<GeneratedReport> {
  try {
    // Timed by generator and outcome, with one client span (R40, R41).
    return await telemetry.generation(async () => {
      // Seconds on Gemini use no CPU or connection here: the admission place is lent (R52).
      const generation = await waitingOutside(() =>
        generator.generate({ context: request.context, language: request.language, text: request.evidence.text, images }, signal),
      );
      return { generation, result: validateResult.toReportResult(generation.candidate) };
    });
  } catch (cause) {
    if (cause instanceof GenerationError) throw new ApiError(CODES[cause.kind], { cause });
    throw cause;
  }
}
