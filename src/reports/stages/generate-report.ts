// Step 8: generation through the ReportGenerator port, then the result checked against the
// contract's result schema before anything is stored (ruling R24). Failures map as R24 sorts
// them; nothing of the provider reaches the response.
import { ApiError } from '../../errors/catalogue.ts';
import { GenerationError, type ReportGenerator } from '../../generation/report-generator.ts';
import type { ResultValidator } from '../../generation/result-schema.ts';
import { ImageSet } from '../../images/image-set.ts';
import type { PipelineState, Stage } from '../pipeline-state.ts';

const CODES = {
  unavailable: 'report_generation_unavailable',
  failed: 'report_generation_failed',
  invalid: 'invalid_generated_report',
} as const;

export function generateReport(generator: ReportGenerator, validateResult: ResultValidator): Stage {
  return {
    step: '8. generate the report',
    async run(state: PipelineState) {
      const { request } = state;
      // This step is the images' last user: it takes them over, and `using` drops the bytes and
      // gives their budget back (the base64 and request-body copies included, R39) as it ends.
      using images = state.images ?? ImageSet.empty();
      state.images = undefined;
      state.imageMetadata = images.accepted;
      try {
        state.generation = await generator.generate(
          {
            context: request.context,
            language: request.language,
            text: request.evidence.text,
            images: images.normalized,
          },
          state.signal,
        );
        state.result = validateResult.toReportResult(state.generation.candidate);
      } catch (cause) {
        if (cause instanceof GenerationError) throw new ApiError(CODES[cause.kind], { cause });
        throw cause;
      }
    },
  };
}
