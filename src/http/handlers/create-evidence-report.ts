// Handler of operationId createEvidenceReport (spec 4.1): HTTP stops here; the use case below
// knows no Koa. Its step 2 part (R7's limits) runs inside the edge's step 2; the 201 gains the
// RateLimit fields (R20) and idempotent-replayed (R13).
import { rateLimitHeaders } from '../../rate-limit/rate-limit-headers.ts';
import type { CreateEvidenceReport } from '../../reports/create-evidence-report.ts';
import type { CreateEvidenceReportRequest } from '../../reports/report-request.ts';
import type { Operation } from '../api-front.ts';

export function createEvidenceReport(useCase: CreateEvidenceReport): Operation {
  return {
    // The body was validated against CreateEvidenceReportRequest just before, in step 2.
    validate: ({ principal, body }) => useCase.validate({ principal, request: body as CreateEvidenceReportRequest }),
    handle: async ({ principal, body, idempotencyKey, requestId, signal }) => {
      const outcome = await useCase.execute({ principal, requestId, request: body as CreateEvidenceReportRequest, idempotencyKey, signal });
      const headers: Record<string, string> = rateLimitHeaders(outcome.rateLimit);
      if (outcome.replayed) headers['idempotent-replayed'] = 'true';
      return { status: 201, body: outcome.body, headers };
    },
  };
}
