// Handler of operationId getEvidenceReport (R54): HTTP stops here; the use case knows no Koa.
import { getEvidenceReport as readReport, type GetEvidenceReportDeps } from '../../reports/get-evidence-report.ts';
import type { Operation } from '../api-front.ts';

export function getEvidenceReport(deps: GetEvidenceReportDeps): Operation {
  return { handle: async ({ principal, params }) => ({ status: 200, body: await readReport(deps, principal, params.id ?? '') }) };
}
