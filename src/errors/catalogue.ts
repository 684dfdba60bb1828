// The one error catalogue: every code the service returns, with its HTTP
// status and message. Fixed texts are the specification's, to the letter (section 7, ruling
// R10); codes without a fixed text get a short plain message that reveals nothing internal.
// test/contract/errors/catalogue-agreement.test.ts holds this table, the contract's ErrorCode enum and
// the specification's tables equal in both directions.
import type { components } from '../../generated/openapi.d.ts';
import type { StepLabel } from '../observability/step-labels.ts';

export type ErrorCode = components['schemas']['ErrorCode'];

interface CatalogueEntry {
  readonly status: 400 | 401 | 403 | 404 | 405 | 409 | 422 | 429 | 500 | 502 | 503;
  readonly message: string;
}

export const ERROR_CATALOGUE = {
  invalid_json: { status: 400, message: 'Request body contains invalid JSON.' },
  invalid_request_payload: { status: 400, message: 'Request body does not match the create evidence report contract.' },
  invalid_idempotency_key: { status: 400, message: 'The Idempotency-Key header must be sent once, with 1 to 255 characters after trimming.' },
  missing_api_key: { status: 401, message: 'The x-api-key header is required.' },
  invalid_api_key: { status: 401, message: 'The provided API key is invalid.' },
  quota_access_denied: { status: 403, message: 'The customer is not allowed to execute this billable operation.' },
  current_usage_access_denied: { status: 403, message: 'Current usage is not available for this customer.' },
  product_not_entitled: { status: 403, message: 'The customer is not entitled to create the service reports.' },
  not_found: { status: 404, message: 'The requested resource does not exist.' },
  evidence_report_not_found: { status: 404, message: 'The evidence report was not found.' },
  method_not_allowed: { status: 405, message: 'The method is not allowed for this resource.' },
  idempotency_conflict: { status: 409, message: 'The idempotency key was already used with a different request.' },
  idempotency_in_progress: { status: 409, message: 'An operation with this idempotency key is still in progress.' },
  invalid_evidence_report_input: { status: 422, message: 'Evidence report input is invalid.' },
  remote_evidence_image_rejected: { status: 422, message: 'One or more remote evidence images could not be accepted safely.' },
  quota_exceeded: { status: 429, message: 'Monthly operation quota has been exceeded.' },
  rate_limit_exceeded: { status: 429, message: 'Rate limit exceeded. Try again later.' },
  internal_error: { status: 500, message: 'An unexpected error occurred.' },
  invalid_generated_report: { status: 502, message: 'The report provider returned an invalid response.' },
  report_generation_failed: { status: 502, message: 'Operational report generation failed.' },
  entitlement_check_unavailable: { status: 503, message: 'Product entitlement validation is temporarily unavailable.' },
  rate_limit_unavailable: { status: 503, message: 'Rate limiting is temporarily unavailable.' },
  remote_evidence_image_unavailable: { status: 503, message: 'One or more remote evidence images could not be retrieved safely.' },
  api_key_authentication_unavailable: { status: 503, message: 'API key authentication is temporarily unavailable.' },
  quota_check_unavailable: { status: 503, message: 'Quota validation is temporarily unavailable.' },
  report_generation_unavailable: { status: 503, message: 'Operational report generation is temporarily unavailable.' },
  evidence_report_write_failed: { status: 503, message: 'The evidence report could not be stored.' },
  usage_recording_failed: { status: 503, message: 'Usage could not be recorded.' },
  current_usage_unavailable: { status: 503, message: 'Current usage information is temporarily unavailable.' },
  idempotency_unavailable: { status: 503, message: 'Idempotency protection is temporarily unavailable.' },
  idempotency_replay_unavailable: { status: 503, message: 'The original idempotent result could not be restored safely.' },
} as const satisfies Record<ErrorCode, CatalogueEntry>;

/**
 * Where each code first arises: a step of POST /v1/evidence/reports (spec section 1, by its
 * operator-interface label), `any_step` (an unexpected error), or another operation or the
 * router. Test mode (R53) derives from this table which codes an `ers_test_trigger:<code>` can
 * raise, and at which step; a new code must say where it arises before it compiles. One place per
 * code: a few arise elsewhere too (the load shedder's 503s, report_generation_unavailable and
 * current_usage_unavailable, before any step; report_generation_unavailable when a report read
 * fails; idempotency_unavailable when the claim is renewed before step 8 or lost at steps 9-10).
 */
type ErrorOrigin = StepLabel | 'any_step' | 'routing' | 'current_usage_read' | 'report_read';

export const ERROR_ORIGIN = {
  invalid_json: '2_validate',
  invalid_request_payload: '2_validate',
  invalid_idempotency_key: '2_validate',
  invalid_evidence_report_input: '2_validate',
  missing_api_key: '1_authenticate',
  invalid_api_key: '1_authenticate',
  api_key_authentication_unavailable: '1_authenticate',
  rate_limit_exceeded: '3_rate_limit',
  rate_limit_unavailable: '3_rate_limit',
  product_not_entitled: '4_entitlement',
  entitlement_check_unavailable: '4_entitlement',
  idempotency_conflict: '5_idempotency',
  idempotency_in_progress: '5_idempotency',
  idempotency_unavailable: '5_idempotency',
  idempotency_replay_unavailable: '5_idempotency',
  quota_access_denied: '6_quota',
  quota_exceeded: '6_quota',
  quota_check_unavailable: '6_quota',
  remote_evidence_image_rejected: '7_fetch_images',
  remote_evidence_image_unavailable: '7_fetch_images',
  invalid_generated_report: '8_generate',
  report_generation_failed: '8_generate',
  report_generation_unavailable: '8_generate',
  evidence_report_write_failed: '9_10_persist',
  usage_recording_failed: '9_10_persist',
  internal_error: 'any_step',
  current_usage_access_denied: 'current_usage_read',
  current_usage_unavailable: 'current_usage_read',
  evidence_report_not_found: 'report_read',
  not_found: 'routing',
  method_not_allowed: 'routing',
} as const satisfies Record<ErrorCode, ErrorOrigin>;

/** Primitive-only details (spec 2.4). */
export type ErrorDetails = Readonly<Record<string, string | number | boolean | null>>;

/**
 * The one error class of the service: a catalogue code, optional primitive details and, for
 * logs only, the cause. Its message is the catalogue's; nothing of the cause reaches a response.
 */
export class ApiError extends Error {
  override readonly name = 'ApiError';
  readonly code: ErrorCode;
  readonly status: CatalogueEntry['status'];
  readonly details: ErrorDetails | undefined;
  /** Response headers that belong to this error (Retry-After of ruling R31, RateLimit fields). */
  readonly headers: Readonly<Record<string, string>>;

  constructor(code: ErrorCode, options: { details?: ErrorDetails; cause?: unknown; headers?: Record<string, string> } = {}) {
    const entry = ERROR_CATALOGUE[code];
    super(entry.message, { cause: options.cause });
    this.code = code;
    this.status = entry.status;
    this.details = options.details;
    this.headers = options.headers ?? {};
  }
}

export function isApiError(value: unknown): value is ApiError {
  return value instanceof ApiError;
}
