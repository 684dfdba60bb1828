// The StepFaults port (R53): the use case asks it at the boundary of every step, just before
// the step runs; it is silent unless this request is in test mode and names a trigger for that
// step. The steps before the trigger's own step have run for real; the triggered step and
// everything after it do not run, so nothing is fetched, generated or recorded, and a claimed
// idempotency key is released exactly as after a real failure of that step (R14).
//
// The error is the one the step itself raises: same code, status and message from the
// catalogue, and the same details and headers, built by the stage's own builders (the rate-limit
// 429 with the details of spec 2.5, Retry-After and the RateLimit fields; the quota 429 with the
// details of spec 2.6 and no Retry-After, R31).
//
// One trigger fires inside its step rather than before it: rate_limit_exceeded. The step takes
// its point from the test bucket as every request that reaches step 3 does (R20 counts them), and
// the refusal is that window's own (rateLimited): its limit, its reset in resetAt, Retry-After
// and the RateLimit fields, as a real refusal of the same bucket at that moment would say.
import type { Principal } from '../../auth/principal.ts';
import { ApiError, type ErrorCode } from '../../errors/catalogue.ts';
import type { StepLabel } from '../../observability/step-labels.ts';
import type { RateLimitDecision } from '../../rate-limit/rate-limiter.ts';
import { rateLimitExceeded } from '../stages/apply-rate-limit.ts';
import { quotaExceeded } from '../stages/check-quota.ts';
import type { CreateEvidenceReportRequest } from '../report-request.ts';
import { ERROR_TRIGGERS, triggerIn } from './error-triggers.ts';

export interface StepFaults {
  /** Throws the triggered error when `step` is where it arises; otherwise returns. */
  before(step: StepLabel): void;
  /** Step 3, its window consumed and the request allowed: throws the triggered refusal of that window. */
  rateLimited(decision: RateLimitDecision): void;
}

const NO_FAULTS: StepFaults = Object.freeze({ before: () => {}, rateLimited: () => {} });

interface FaultContext {
  readonly principal: Principal;
  readonly request: CreateEvidenceReportRequest;
  readonly now: Date;
}

/** The trigger that fires inside its step, from the window it consumed (see the head of this file). */
const WINDOW_REFUSAL: ErrorCode = 'rate_limit_exceeded';

/** The faults of one request: none for a live key (R53: the text is plain evidence) or without a trigger. */
export function stepFaults(context: FaultContext): StepFaults {
  if (context.principal.mode !== 'test') return NO_FAULTS;
  const code = triggerIn(context.request.evidence.text);
  if (code === undefined) return NO_FAULTS;
  const step = ERROR_TRIGGERS.get(code);
  const fire = (error: ApiError): never => {
    triggered.add(error);
    throw error;
  };
  return {
    before(current) {
      if (current === step && code !== WINDOW_REFUSAL) fire(triggeredError(code, context));
    },
    rateLimited(decision) {
      if (code === WINDOW_REFUSAL) fire(rateLimitExceeded({ ...decision, allowed: false, remaining: 0 }, context.now));
    },
  };
}

const triggered = new WeakSet<ApiError>();

/**
 * Whether an error was raised by a test-mode trigger, not by a dependency: its answer is the
 * real one, but the log must not report an outage that an integrator's CI asked for.
 */
export function isTestTrigger(error: ApiError): boolean {
  return triggered.has(error);
}

/** Where the triggered error points in the request: the evidence text that carries the trigger. */
const AT_TEXT = { pointer: '/evidence/text', rule: 'ers_test_trigger' } as const;

function triggeredError(code: ErrorCode, { principal, request }: FaultContext): ApiError {
  switch (code) {
    case 'invalid_request_payload':
    case 'invalid_evidence_report_input':
      return new ApiError(code, { details: AT_TEXT });
    case 'quota_exceeded': {
      // The test ledger as an exhausted one looks: used the whole limit, none remaining.
      const limit = principal.planUsage.readable ? (principal.planUsage.value?.limit ?? 0) : 0;
      return quotaExceeded({ limit, used: limit }, principal.period);
    }
    case 'remote_evidence_image_rejected':
    case 'remote_evidence_image_unavailable':
      // The first image, as the boundary names the image that failed (R23); none without images.
      return new ApiError(code, (request.evidence.images ?? []).length > 0 ? { details: { imageIndex: 0 } } : {});
    default:
      return new ApiError(code);
  }
}
