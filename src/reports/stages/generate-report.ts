// Step 8: generation through the ReportGenerator port, then the result checked against the
// contract's result schema before anything is stored (ruling R24). Failures map as R24 sorts
// them; nothing of the provider reaches the response.
import { ApiError } from '../../errors/catalogue.ts';
import { GenerationError, type ReportGenerator } from '../../generation/report-generator.ts';
import type { ResultValidator } from '../../generation/result-schema.ts';
import type { PipelineState, Stage } from '../pipeline-state.ts';
import { noopTelemetry, type Telemetry } from '../../observability/telemetry.ts';

const CODES = {
  unavailable: 'report_generation_unavailable',
  failed: 'report_generation_failed',
  invalid: 'invalid_generated_report',
} as const;

export function generateReport(generator: ReportGenerator, validateResult: ResultValidator, telemetry: Telemetry = noopTelemetry): Stage {
  return {
    step: '8. generate the report',
    async run(state: PipelineState) {
      const { request } = state;
      try {
        // Timed by generator and outcome, with one client span (R40, R41).
        state.result = await telemetry.generation(async () => {
          state.generation = await generator.generate(
            {
              context: request.context,
              language: request.language,
              text: request.evidence.text,
              images: state.images ?? [],
            },
            state.signal,
          );
          return validateResult.toReportResult(state.generation.candidate);
        });
      } catch (cause) {
        if (cause instanceof GenerationError) throw new ApiError(CODES[cause.kind], { cause });
        throw cause;
      } finally {
        // The bytes are not needed past this step: keep metadata only and free their budget.
        state.imageMetadata = (state.images ?? []).map(({ bytes: _bytes, ...metadata }) => metadata);
        state.images = undefined;
        state.releaseImages?.();
      }
    },
  };
}
