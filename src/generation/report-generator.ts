// The ReportGenerator port (issue 4 step 8, issue 5). Adapters: the offline generator of
// ruling R25 and the Gemini adapter of ruling R2. An adapter returns the candidate result as
// it came (parsed JSON, unvalidated); the pipeline checks it against the contract's result
// schema (ruling R24) before anything is stored.
import type { components } from '../../generated/openapi.d.ts';

export type ReportResult = components['schemas']['ReportResult'];
export type OperationalContext = components['schemas']['OperationalContext'];
export type ImageMimeType = 'image/jpeg' | 'image/png' | 'image/gif' | 'image/webp';

/** One image as the generator gets it: normalized by the image boundary (R38), never the original. */
export interface GenerationImage {
  readonly mimeType: ImageMimeType;
  readonly bytes: Buffer;
  readonly sizeBytes: number;
  readonly width: number;
  readonly height: number;
}

export interface GenerationInput {
  readonly context: OperationalContext;
  /** Output-language guidance from the request, when given. */
  readonly language: string | undefined;
  readonly text: string | undefined;
  /** Normalized image bytes (R38); URLs and originals never reach a generator (spec section 1, R22). */
  readonly images: readonly GenerationImage[];
}

export interface TokenUsage {
  readonly promptTokens: number | null;
  readonly outputTokens: number | null;
  readonly totalTokens: number | null;
}

export interface GenerationOutput {
  /** The candidate result, parsed but not validated (R24 is the pipeline's job). */
  readonly candidate: unknown;
  /** Stored with the report, never exposed. */
  readonly generator: 'offline' | 'gemini';
  readonly model: string | null;
  readonly latencyMs: number;
  readonly tokenUsage: TokenUsage | null;
}

export interface ReportGenerator {
  generate(input: GenerationInput, signal?: AbortSignal): Promise<GenerationOutput>;
  /**
   * R39: bytes of image data this generator holds while it generates besides the image itself
   * (an encoding of it, the request body that carries it), for one image of `sizeBytes`. The
   * pipeline reserves them on the image byte budget before step 8 and gives them back after the
   * call. Absent: none (the offline generator reads metadata only).
   */
  imageCopyBytes?(image: { readonly sizeBytes: number }): number;
}

/**
 * Generation failures, sorted as ruling R24 sorts them:
 * - 'unavailable': unreachable, timed out, rate-limited (429) or 5xx -> 503 report_generation_unavailable
 * - 'failed': refusal, safety block, empty or truncated answer, other 4xx -> 502 report_generation_failed
 * - 'invalid': an answer the contract cannot represent (not JSON, wrong shape) -> 502 invalid_generated_report
 * `reason` is for logs and tests only; it never carries provider text, prompts or model names.
 */
export class GenerationError extends Error {
  override readonly name = 'GenerationError';
  readonly kind: 'unavailable' | 'failed' | 'invalid';
  readonly reason: string;

  constructor(kind: GenerationError['kind'], reason: string, options?: { cause?: unknown }) {
    super(`report generation ${kind}: ${reason}`, options);
    this.kind = kind;
    this.reason = reason;
  }
}
