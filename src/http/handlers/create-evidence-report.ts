// Handler of operationId createEvidenceReport (spec 4.1): HTTP stops here; the use case below
// knows no Koa. Adds the RateLimit fields (R20) and idempotent-replayed (R13) to the 201.
import { rateLimitHeaders } from '../../rate-limit/rate-limit-headers.ts';
import type { CreateEvidenceReport } from '../../reports/create-evidence-report.ts';
import type { CreateEvidenceReportRequest } from '../../reports/report-request.ts';
import type { OperationHandler } from '../openapi-bridge.ts';

export function createEvidenceReport(useCase: CreateEvidenceReport): OperationHandler {
  return async ({ principal, body, idempotencyKey, requestId, signal }) => {
    const outcome = await useCase.execute({
      principal,
      requestId,
      // openapi-backend validated it against CreateEvidenceReportRequest at step 2.
      request: body as CreateEvidenceReportRequest,
      idempotencyKey,
      signal,
    });
    const headers: Record<string, string> = rateLimitHeaders(outcome.rateLimit);
    if (outcome.replayed) headers['idempotent-replayed'] = 'true';
    return { status: 201, body: outcome.body, headers };
  };
}
