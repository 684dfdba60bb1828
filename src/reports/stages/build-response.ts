// Step 11: the public result, built field by field from the stored result (spec 2.2).
import { publicReport } from '../public-report.ts';
import type { PipelineState, Stage } from '../pipeline-state.ts';

export function buildResponse(): Stage {
  return {
    step: '11. return the public result',
    async run(state: PipelineState) {
      if (!state.reportId || !state.result) throw new Error('response stage reached without a stored report');
      state.response = { body: publicReport(state.reportId, state.result), replayed: false };
    },
  };
}
