// What flows through the stages of report creation, filled in step by step.
import type { components } from '../../generated/openapi.d.ts';
import type { Principal } from '../auth/principal.ts';
import type { GenerationOutput, ReportResult } from '../generation/report-generator.ts';
import type { FetchedImage } from '../images/image-fetcher.ts';

export type ImageMetadata = Omit<FetchedImage, 'bytes'>;
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
  /** The fetched bytes, held only until generation is done (then dropped, and their budget freed). */
  images?: FetchedImage[];
  /** Ends the hold of the image bytes on the process-wide budget (issue 3); safe to call twice. */
  releaseImages?: () => void;
  /** What is kept of the images once generated: metadata, never bytes or URLs. */
  imageMetadata?: ImageMetadata[];
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
