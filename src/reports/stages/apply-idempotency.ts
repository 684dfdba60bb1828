// Step 5: idempotency when Idempotency-Key is present (spec 4.1, rulings R11 to R14, R30).
// A live claim of the same request is 409 idempotency_in_progress, another request under the
// key 409 idempotency_conflict; a completed one is replayed (R13: it skips steps 6 to 10 and is
// not blocked by the quota). Protection that cannot be established is 503.
import { ApiError } from '../../errors/catalogue.ts';
import type { Mode } from '../../accounts/mode.ts';
import type { ResultValidator } from '../../generation/result-schema.ts';
import { requestFingerprint } from '../../idempotency/fingerprint.ts';
import type { IdempotencyClaim, IdempotencyStore } from '../../idempotency/idempotency-store.ts';
import { publicReport } from '../public-report.ts';
import type { CreateEvidenceReportRequest, EvidenceReportBody } from '../report-request.ts';

export const CREATE_REPORT_METHOD = 'POST';
export const CREATE_REPORT_PATH = '/v1/evidence/reports';

type IdempotencyDecision =
  | { kind: 'unprotected' }
  | { kind: 'claimed'; claim: IdempotencyClaim }
  | { kind: 'replay'; body: EvidenceReportBody };

interface IdempotencyInput {
  customerId: string;
  /** R53: test keys have a namespace of their own. */
  mode: Mode;
  key: string | undefined;
  request: CreateEvidenceReportRequest;
  now: Date;
}

export async function applyIdempotency(
  store: IdempotencyStore,
  validateResult: ResultValidator,
  input: IdempotencyInput,
): Promise<IdempotencyDecision> {
  if (input.key === undefined) return { kind: 'unprotected' };
  const fingerprint = requestFingerprint(CREATE_REPORT_METHOD, CREATE_REPORT_PATH, input.request);
  let outcome;
  try {
    outcome = await store.claim({ customerId: input.customerId, mode: input.mode }, input.key, fingerprint, input.now);
  } catch (cause) {
    throw new ApiError('idempotency_unavailable', { cause });
  }
  switch (outcome.kind) {
    case 'claimed':
      return { kind: 'claimed', claim: outcome.claim };
    case 'conflict':
      throw new ApiError('idempotency_conflict');
    case 'in_progress':
      throw new ApiError('idempotency_in_progress');
    case 'replay':
      return { kind: 'replay', body: restore(validateResult, outcome.reportId, outcome.result) };
  }
}

/**
 * Before step 8 (R14): the claim must outlive the generation, or a retry could take the key over
 * while this request is still generating and pay for a second one. A claim that could not be
 * renewed is 503 idempotency_unavailable, as at completion: nothing has been paid for yet.
 */
export async function keepClaim(store: IdempotencyStore, claim: IdempotencyClaim, now: Date): Promise<IdempotencyClaim> {
  try {
    return await store.keep(claim, now);
  } catch (cause) {
    throw new ApiError('idempotency_unavailable', { cause });
  }
}

/** The original 201 body, rebuilt from the stored report; 503 when it cannot be restored safely. */
function restore(validateResult: ResultValidator, reportId: string | null, stored: unknown): EvidenceReportBody {
  try {
    if (reportId === null) throw new Error('completed key without a report');
    if (stored === undefined) throw new Error('report of a completed key is gone');
    return publicReport(reportId, validateResult.toReportResult(stored));
  } catch (cause) {
    throw new ApiError('idempotency_replay_unavailable', { cause });
  }
}
