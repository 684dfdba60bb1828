// What flows through the stages of report creation, filled in step by step.
import type { components } from '../../generated/openapi.d.ts';
import type { Principal } from '../auth/principal.ts';
import type { GenerationOutput, ReportResult } from '../generation/report-generator.ts';
import type { AcceptedImage, ImageSet } from '../images/image-set.ts';

/** What the stored report keeps of an image (R38): original and normalized facts, never bytes. */
export type ImageMetadata = AcceptedImage;
import type { RateLimitDecision } from '../rate-limit/rate-limiter.ts';
import type { IdempotencyClaim } from '../idempotency/idempotency-store.ts';

export type CreateEvidenceReportRequest = components['schemas']['CreateEvidenceReportRequest'];
export type EvidenceReportBody = components['schemas']['EvidenceReport'];

export interface PipelineState {
  readonly principal: Principal;
  readonly requestId: string;
  /** The body as validated against the contract at step 2. */
  readonly request: CreateEvidenceReportRequest;
  readonly idempotencyKey: string | undefined;
  readonly signal: AbortSignal;
  readonly now: Date;
  rateLimit?: RateLimitDecision;
  claim?: IdempotencyClaim;
  /**
   * Step 7's images: the one owner of their normalized bytes and budget (R39). Step 8 takes it
   * out of the state and disposes it after the generator call; execute() disposes whatever is
   * still here when the pipeline stops before step 8.
   */
  images?: ImageSet;
  /** What is kept of the images once generated: metadata, never bytes or URLs. */
  imageMetadata?: readonly ImageMetadata[];
  generation?: GenerationOutput;
  result?: ReportResult;
  reportId?: string;
  /** Set by the stage that ends the pipeline: the 201 body and whether it is a replay. */
  response?: { body: EvidenceReportBody; replayed: boolean };
}

/**
 * A stage of the pipeline. It reads and fills the state, throws an ApiError of its own codes
 * to stop processing, or sets `state.response` to answer early (an idempotent replay).
 */
export interface Stage {
  /** The step of spec section 1 this stage implements, for the ordered list and the logs. */
  readonly step: string;
  run(state: PipelineState): Promise<void>;
}
