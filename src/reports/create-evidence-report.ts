// POST /v1/evidence/reports as one ordered list of stages, in the specification's processing
// order (section 1). Steps 1 and 2 run at the HTTP edge, before this use case:
//   1. authenticate        http/openapi-bridge.ts security handler, before the body is read (R5)
//                          401 missing_api_key, invalid_api_key; 503 api_key_authentication_unavailable
//   2. validate (HTTP)     http/request-intake.ts then openapi-backend (R6, R8, R11, R29)
//                          400 invalid_request_payload, invalid_idempotency_key, invalid_json
// The rest is below. A failure at any step stops processing; a claimed idempotency key is
// released so the client can retry (R14); only steps 9-10 write anything lasting (R15).
import type { Sql } from '../db/sql.ts';
import type { Logger } from 'pino';
import type { Principal } from '../auth/principal.ts';
import type { ReportGenerator } from '../generation/report-generator.ts';
import type { ResultValidator } from '../generation/result-schema.ts';
import type { IdempotencyStore } from '../idempotency/idempotency-store.ts';
import type { ImageBoundary } from '../images/image-boundary.ts';
import type { RateLimitDecision, RateLimiter } from '../rate-limit/rate-limiter.ts';
import type { Clock } from '../shared/clock.ts';
import type { CreateEvidenceReportRequest, EvidenceReportBody, PipelineState, Stage } from './pipeline-state.ts';
import type { ReportStore } from './report-store.ts';
import { describeCause } from '../shared/describe-cause.ts';
import { applyIdempotency } from './stages/apply-idempotency.ts';
import { applyRateLimit } from './stages/apply-rate-limit.ts';
import { buildResponse } from './stages/build-response.ts';
import { checkEntitlement } from './stages/check-entitlement.ts';
import { checkInputLimits, type InputLimits } from './stages/check-input-limits.ts';
import { checkQuota } from './stages/check-quota.ts';
import { fetchImages } from './stages/fetch-images.ts';
import { generateReport } from './stages/generate-report.ts';
import { persistReport } from './stages/persist-report.ts';

export interface CreateEvidenceReportDeps {
  sql: Sql;
  clock: Clock;
  log: Logger;
  limits: InputLimits;
  rateLimiter: RateLimiter;
  idempotency: IdempotencyStore;
  reports: ReportStore;
  /** Step 7: fetch, decode and normalize (R22, R38), on the process-wide byte budget (R39). */
  images: Pick<ImageBoundary, 'acquire'>;
  generator: ReportGenerator;
  validateResult: ResultValidator;
}

export function createReportStages(deps: CreateEvidenceReportDeps): readonly Stage[] {
  return [
    checkInputLimits(deps.limits), //                                    2. 422 invalid_evidence_report_input
    applyRateLimit(deps.rateLimiter), //                                 3. 429 rate_limit_exceeded; 503 rate_limit_unavailable
    checkEntitlement(deps.sql), //                                       4. 403 product_not_entitled; 503 entitlement_check_unavailable
    applyIdempotency({ store: deps.idempotency, reports: deps.reports, validateResult: deps.validateResult }),
    //                                                                   5. 409 idempotency_conflict, idempotency_in_progress;
    //                                                                      503 idempotency_unavailable, idempotency_replay_unavailable
    checkQuota(deps.sql), //                                             6. 403 quota_access_denied; 429 quota_exceeded; 503 quota_check_unavailable
    fetchImages(deps.images), //                                         7. 422 remote_evidence_image_rejected; 503 remote_evidence_image_unavailable
    generateReport(deps.generator, deps.validateResult), //              8. 502 invalid_generated_report, report_generation_failed;
    //                                                                      503 report_generation_unavailable
    persistReport(deps.reports, deps.idempotency), //                 9-10. 503 evidence_report_write_failed, usage_recording_failed
    buildResponse(), //                                                 11. 201
  ];
}

export interface CreateEvidenceReportInput {
  principal: Principal;
  requestId: string;
  request: CreateEvidenceReportRequest;
  idempotencyKey: string | undefined;
  signal: AbortSignal;
}

export interface CreateEvidenceReportOutcome {
  body: EvidenceReportBody;
  replayed: boolean;
  rateLimit: RateLimitDecision | undefined;
}

export class CreateEvidenceReport {
  readonly #deps: CreateEvidenceReportDeps;
  readonly #stages: readonly Stage[];

  constructor(deps: CreateEvidenceReportDeps) {
    this.#deps = deps;
    this.#stages = createReportStages(deps);
  }

  async execute(input: CreateEvidenceReportInput): Promise<CreateEvidenceReportOutcome> {
    const state: PipelineState = { ...input, now: this.#deps.clock.now() };
    try {
      for (const stage of this.#stages) {
        await stage.run(state);
        if (state.response) break; // an idempotent replay ends the pipeline at step 5 (R13)
      }
    } catch (error) {
      await this.#release(state);
      throw error;
    } finally {
      // Only when the pipeline stopped before step 8 took the images over (R39).
      state.images?.[Symbol.dispose]();
    }
    if (!state.response) throw new Error('pipeline ended without a response');
    return { body: state.response.body, replayed: state.response.replayed, rateLimit: state.rateLimit };
  }

  /** Ruling R14: give the key back after a failure; if even that fails, the lease expires. */
  async #release(state: PipelineState): Promise<void> {
    if (!state.claim) return;
    try {
      await this.#deps.idempotency.release(state.claim);
    } catch (err) {
      this.#deps.log.warn({ cause: describeCause(err) }, 'could not release an idempotency claim; it expires with its lease');
    }
  }
}
