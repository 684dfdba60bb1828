// GET /v1/evidence/reports/{id} (R54): one of the caller's reports, with the body of the 201
// that created it, in the caller's mode. Authentication at the edge (401, 503) and the product
// entitlement (403 product_not_entitled, 503 entitlement_check_unavailable) as for creation,
// judged from step 1's facts; then one read. Reading is free: no usage unit, not counted by
// the creation rate limit. An unknown id, another customer's and the other mode's all get the
// same 404 evidence_report_not_found.
import type { Principal } from '../auth/principal.ts';
import { PersistenceFailure } from '../db/persistence-failure.ts';
import { ApiError } from '../errors/catalogue.ts';
import type { ResultValidator } from '../generation/result-schema.ts';
import { publicReport } from './public-report.ts';
import type { ReportReader } from './report-reader.ts';
import type { EvidenceReportBody } from './report-request.ts';
import { checkEntitlement } from './stages/check-entitlement.ts';

export interface GetEvidenceReportDeps {
  reports: ReportReader;
  validateResult: ResultValidator;
}

export async function getEvidenceReport(deps: GetEvidenceReportDeps, principal: Principal, reportId: string): Promise<EvidenceReportBody> {
  checkEntitlement(principal);
  let stored: unknown;
  try {
    stored = await deps.reports.storedResult(reportId, principal);
  } catch (cause) {
    // The report service cannot answer for now: the 503 that R52 also gives reports when the
    // instance sheds load (retry with bounded exponential backoff).
    if (cause instanceof PersistenceFailure) throw new ApiError('report_generation_unavailable', { cause });
    throw cause;
  }
  if (stored === undefined) throw new ApiError('evidence_report_not_found');
  // Built field by field from the stored result, exactly as the 201 and a replay were (R13).
  return publicReport(reportId, deps.validateResult.toReportResult(stored));
}
