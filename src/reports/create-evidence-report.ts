// POST /v1/evidence/reports in the specification's processing order (section 1), one stage
// function per step, each in its own file under stages/ naming the codes it can raise. Each
// stage returns what the next needs, or throws the ApiError that ends the request.
//   1. authenticate        auth/api-key-authenticator.ts, at the HTTP edge before the body is read
//                          (R5): 401 missing_api_key, invalid_api_key; 503 api_key_authentication_unavailable.
//                          Its one read brings the facts of steps 4 and 6 (one statement).
//   2. validate            at the HTTP edge too (http/api-front.ts): the intake and openapi-backend's
//                          schema (R6, R8, R11, R29): 400 invalid_request_payload,
//                          invalid_idempotency_key, invalid_json; then `validate` below, inside
//                          the same step: the application limits (R7): 422 invalid_evidence_report_input.
// Steps 3 to 11 are `execute`. A failure at any step stops processing; a claimed idempotency key is
// released so the client can retry (R14); only steps 9-10 write anything lasting (R15).
import type { Principal } from '../auth/principal.ts';
import type { ReportGenerator } from '../generation/report-generator.ts';
import type { ResultValidator } from '../generation/result-schema.ts';
import type { IdempotencyStore } from '../idempotency/idempotency-store.ts';
import type { ImageBoundary } from '../images/image-boundary.ts';
import type { RateLimitDecision, RateLimiter } from '../rate-limit/rate-limiter.ts';
import type { Clock } from '../shared/clock.ts';
import { publicReport } from './public-report.ts';
import type { ReportRepository } from './report-repository.ts';
import type { PlanUsageReader } from '../usage/plan-usage-reader.ts';
import type { CreateEvidenceReportRequest, EvidenceReportBody } from './report-request.ts';
import { applyIdempotency, keepClaim } from './stages/apply-idempotency.ts';
import { acquireInFlight, applyRateLimit } from './stages/apply-rate-limit.ts';
import { CustomerInFlight } from '../rate-limit/customer-in-flight.ts';
import { checkEntitlement } from './stages/check-entitlement.ts';
import { checkInputLimits, type InputLimits } from './stages/check-input-limits.ts';
import { checkQuota, currentPlanUsage } from './stages/check-quota.ts';
import { fetchImages } from './stages/fetch-images.ts';
import { generateReport } from './stages/generate-report.ts';
import { imageMetadata, persistReport } from './stages/persist-report.ts';
import { noopTelemetry, type Telemetry } from '../observability/telemetry.ts';
import { stepFaults, type StepFaults } from './test-mode/step-faults.ts';

/** R53: a test key has a rate-limit bucket of its own. */
function rateLimitBucket(principal: Pick<Principal, 'customerId' | 'mode'>): string {
  return principal.mode === 'test' ? `${principal.customerId}:test` : principal.customerId;
}

interface CreateEvidenceReportDeps {
  clock: Clock;
  limits: InputLimits;
  rateLimiter: RateLimiter;
  idempotency: IdempotencyStore;
  reports: ReportRepository;
  /** Step 6: the month's usage again when step 1's figure is no longer fresh (spec section 8). */
  planUsage: PlanUsageReader;
  /** Step 7: fetch, decode and normalize (R22, R38), on the process-wide byte budget (R39). */
  images: Pick<ImageBoundary, 'acquire'>;
  generator: ReportGenerator;
  /** R53: test mode's generator, whatever REPORT_GENERATOR says: the offline one, deterministic and free. */
  testGenerator: ReportGenerator;
  validateResult: ResultValidator;
  /** Times each step, the image fetch and the generation (R40, R41); none when absent. */
  telemetry?: Pick<Telemetry, 'step' | 'imageFetch' | 'generation'> & Partial<Pick<Telemetry, 'admissionRejected'>>;
  /** R52: creations in flight per customer on this instance; no limit when absent. */
  inFlight?: CustomerInFlight;
}

interface CreateEvidenceReportInput {
  principal: Principal;
  requestId: string;
  request: CreateEvidenceReportRequest;
  idempotencyKey: string | undefined;
  signal: AbortSignal;
}

/** What step 2's application part reads. */
type ReportInput = Pick<CreateEvidenceReportInput, 'principal' | 'request'>;

export interface CreateEvidenceReportOutcome {
  body: EvidenceReportBody;
  replayed: boolean;
  rateLimit: RateLimitDecision;
}

export class CreateEvidenceReport {
  readonly #deps: CreateEvidenceReportDeps;
  readonly #telemetry: NonNullable<CreateEvidenceReportDeps['telemetry']>;
  readonly #inFlight: CustomerInFlight;

  constructor(deps: CreateEvidenceReportDeps) {
    this.#deps = deps;
    this.#telemetry = deps.telemetry ?? noopTelemetry;
    this.#inFlight = deps.inFlight ?? new CustomerInFlight(0);
  }

  /**
   * Step 2, its last part, after the contract's schema: the application limits (R7). The edge
   * runs it inside its step 2 (its duration and span), which is where a test key's step-2
   * trigger fires too (R53).
   */
  validate({ principal, request }: ReportInput): void {
    this.#faults({ principal, request }, this.#deps.clock.now()).before('2_validate');
    checkInputLimits(this.#deps.limits, request); //                          2. 422 invalid_evidence_report_input
  }

  /** Steps 3 to 11, on a request that passed step 2 (`validate`). */
  async execute(input: CreateEvidenceReportInput): Promise<CreateEvidenceReportOutcome> {
    const d = this.#deps;
    const telemetry = this.#telemetry;
    const { principal, request, signal } = input;
    // The month is step 1's. The unit (and its report) is dated at step 1's instant, principal.at,
    // never a new reading: the month the quota was judged in is the month the unit is billed in
    // (R17), however long the body took to arrive. What runs for a time from here reads the clock
    // afresh: the faults of test mode and the claim (`now`), the claim's renewal before the
    // generator and its retention when it completes (R14), each at its own moment.
    const now = d.clock.now();
    const faults = this.#faults(input, now);
    // Each step runs through the telemetry port: its duration and its span (R40, R41).
    const step: Telemetry['step'] = (label, run) =>
      telemetry.step(label, () => {
        faults.before(label);
        return run();
      });
    const generator = principal.mode === 'test' ? d.testGenerator : d.generator;
    // R52: the customer's place among its creations in flight (of the key's mode, R53) is held
    // from step 3 until this function returns or throws, replays and failures included (`using`
    // gives it back).
    using admitted = await step('3_rate_limit', async () => {
      const slot = acquireInFlight(this.#inFlight, rateLimitBucket(principal), now, () => telemetry.admissionRejected?.('customer_in_flight'));
      try {
        const decision = await applyRateLimit(d.rateLimiter, rateLimitBucket(principal), now);
        faults.rateLimited(decision); // R53: a rate_limit_exceeded trigger is this window's refusal
        return { slot, decision, [Symbol.dispose]: () => slot.release() };
      } catch (error) {
        slot.release();
        throw error;
      }
    }); //                                                                      3. 429 rate_limit_exceeded; 503 rate_limit_unavailable
    const rateLimit = admitted.decision;
    await step('4_entitlement', () => checkEntitlement(principal)); //        4. 403 product_not_entitled; 503 entitlement_check_unavailable
    const idempotency = await step('5_idempotency', () =>
      applyIdempotency(d.idempotency, d.validateResult, { customerId: principal.customerId, mode: principal.mode, key: input.idempotencyKey, request, now }),
    ); //                                                                       5. 409 idempotency_conflict, idempotency_in_progress;
    //                                                                             503 idempotency_unavailable, idempotency_replay_unavailable
    if (idempotency.kind === 'replay') return { body: idempotency.body, replayed: true, rateLimit }; // R13: skips 6 to 10
    let claim = idempotency.kind === 'claimed' ? idempotency.claim : undefined;
    try {
      await step('6_quota', async () => checkQuota(principal, await currentPlanUsage(d.planUsage, principal, d.clock.now())));
      //                                                                        6. 403 quota_access_denied; 429 quota_exceeded; 503 quota_check_unavailable
      let generated;
      let images;
      {
        // The block is the images' one owner: leaving it, after step 8 or on any failure, drops
        // their bytes and gives their budget back, exactly once (R39). Their facts stay.
        using held = await step('7_fetch_images', () => fetchImages(d.images, request, signal, telemetry, principal.customerId));
        //                                                                      7. 422 remote_evidence_image_rejected; 503 remote_evidence_image_unavailable
        images = imageMetadata(held.accepted);
        generated = await step('8_generate', async () => {
          // R14: a claim that the images' time has left short of one generation is renewed first.
          if (claim) claim = await keepClaim(d.idempotency, claim, d.clock.now());
          return generateReport(generator, d.validateResult, request, held.normalized, signal, telemetry);
        });
        //                                                                      8. 502 invalid_generated_report, report_generation_failed;
        //                                                                         503 report_generation_unavailable; idempotency_unavailable
      }
      const stored = await step('9_10_persist', () =>
        persistReport(d.reports, {
          customerId: principal.customerId,
          mode: principal.mode,
          apiKeyId: principal.apiKeyId,
          requestId: input.requestId,
          request,
          images,
          generated,
          idempotency: claim && d.idempotency.completion(claim, d.clock.now()),
          now: principal.at,
        }),
      ); //                                                                  9-10. 503 evidence_report_write_failed, usage_recording_failed
      const body = await step('11_respond', () => publicReport(stored.reportId, stored.result)); // 11. 201
      return { body, replayed: false, rateLimit };
    } catch (error) {
      // R14: give the key back after any failure past the claim (retried in the background if
      // that fails too, R36). After step 9-10 succeeded the claim is a completed record.
      if (claim) await d.idempotency.release(claim);
      throw error;
    }
  }

  /** R53: in test mode, an error trigger in the evidence text fails its step, at the step's boundary; silent otherwise. */
  #faults({ principal, request }: ReportInput, now: Date): StepFaults {
    return stepFaults({ principal, request, now });
  }
}
