// Step 11's body, built field by field from a stored result, so that nothing else (a field a
// generator added, a stored column) can reach the response (spec 2.2, ruling R24).
import type { ReportResult } from '../generation/report-generator.ts';
import { copyReportResult } from '../generation/result-schema.ts';
import { EVIDENCE_REPORT_OPERATION } from '../usage/usage-record.entity.ts';
import type { EvidenceReportBody } from './report-request.ts';

export function publicReport(id: string, result: ReportResult): EvidenceReportBody {
  return {
    id,
    status: 'completed',
    result: copyReportResult(result),
    usage: { operation: EVIDENCE_REPORT_OPERATION, units: 1 },
  };
}
