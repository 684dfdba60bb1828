// Steps 9 and 10: the report and its usage unit, with the idempotency completion, in one
// transaction (ruling R15). A claim lost to a takeover (our lease ran out) rolls everything
// back (503 idempotency_unavailable): the request that took the key over makes the one report.
import { storableValue } from '../../db/storable.ts';
import type { IdempotencyStore } from '../../idempotency/idempotency-store.ts';
import type { ReportStore } from '../report-store.ts';
import type { PipelineState, Stage } from '../pipeline-state.ts';

export function persistReport(reports: ReportStore, idempotency: IdempotencyStore): Stage {
  return {
    step: '9-10. persist the report and record usage (one transaction)',
    async run(state: PipelineState) {
      const { generation, result, claim } = state;
      if (!generation || !result) throw new Error('persist stage reached without a generated report');
      // The 201 body is built from the result as stored, so that a replay returns it unchanged.
      state.result = storableValue(result);
      state.reportId = await reports.persist(
        { ...state, images: state.imageMetadata ?? [], generation, result: state.result },
        claim && idempotency.completion(claim, state.now),
      );
      // The claim is now a completed record: nothing to release.
      state.claim = undefined;
    },
  };
}
