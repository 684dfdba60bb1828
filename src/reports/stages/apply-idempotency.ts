// Step 5: idempotency when Idempotency-Key is present (spec 4.1, rulings R11 to R14, R30).
// A live claim of the same request is 409 idempotency_in_progress, another request under the
// key 409 idempotency_conflict; a completed one is replayed (R13: it skips steps 6 to 10 and
// is not blocked by the quota). Protection that cannot be established is 503.
import { ApiError } from '../../errors/catalogue.ts';
import type { ResultValidator } from '../../generation/result-schema.ts';
import { requestFingerprint } from '../../idempotency/fingerprint.ts';
import type { IdempotencyStore } from '../../idempotency/idempotency-store.ts';
import type { ReportStore } from '../report-store.ts';
import { publicReport } from '../public-report.ts';
import type { PipelineState, Stage } from '../pipeline-state.ts';

export const CREATE_REPORT_METHOD = 'POST';
export const CREATE_REPORT_PATH = '/v1/evidence/reports';

export interface IdempotencyStageDeps {
  store: IdempotencyStore;
  reports: ReportStore;
  validateResult: ResultValidator;
}

export function applyIdempotency(deps: IdempotencyStageDeps): Stage {
  return {
    step: '5. idempotency',
    async run(state: PipelineState) {
      if (state.idempotencyKey === undefined) return;
      const fingerprint = requestFingerprint(CREATE_REPORT_METHOD, CREATE_REPORT_PATH, state.request);
      let outcome;
      try {
        outcome = await deps.store.claim(state.principal.customerId, state.idempotencyKey, fingerprint, state.now);
      } catch (cause) {
        throw new ApiError('idempotency_unavailable', { cause });
      }
      switch (outcome.kind) {
        case 'claimed':
          state.claim = outcome.claim;
          return;
        case 'conflict':
          throw new ApiError('idempotency_conflict');
        case 'in_progress':
          throw new ApiError('idempotency_in_progress');
        case 'replay':
          state.response = { body: await restore(deps, state.principal.customerId, outcome.reportId), replayed: true };
      }
    },
  };
}

/** The original 201 body, rebuilt from the stored report; 503 when it cannot be restored safely. */
async function restore(deps: IdempotencyStageDeps, customerId: string, reportId: string | null) {
  try {
    if (reportId === null) throw new Error('completed key without a report');
    const stored = await deps.reports.loadResult(customerId, reportId);
    if (stored === undefined) throw new Error('report of a completed key is gone');
    return publicReport(reportId, deps.validateResult.toReportResult(stored));
  } catch (cause) {
    throw new ApiError('idempotency_replay_unavailable', { cause });
  }
}
