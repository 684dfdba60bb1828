// The ReportGenerator port (pipeline step 8). Adapters: the offline generator of
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

/** R43: tokens of one answer, counted apart (thinking is billed as output but reported on its own). */
export interface GenerationTokens {
  readonly input: number;
  readonly output: number;
  readonly thinking: number;
}

export interface GenerationOutput {
  /** The candidate result, parsed but not validated (R24 is the pipeline's job). */
  readonly candidate: unknown;
  /** Stored with the report, never exposed. */
  readonly generator: 'offline' | 'gemini';
  /** R42: the model that answered (one of GEMINI_MODEL), or 'offline'. Stored, never exposed. */
  readonly model: string;
  readonly latencyMs: number;
  /** R43: the answer's tokens, stored with the report and added to ers_generator_tokens_total. */
  readonly tokens: GenerationTokens;
  /** The provider's usage record as it came (null when it sent none, and for the offline generator). */
  readonly tokenUsage: TokenUsage | null;
}

/** R42: how one attempt on one model ended (ers_generator_attempts_total's `outcome`). */
export type AttemptOutcome = 'ok' | 'not_found' | 'rate_limited' | 'unavailable' | 'failed' | 'invalid';
export const ATTEMPT_OUTCOMES: readonly AttemptOutcome[] = ['ok', 'not_found', 'rate_limited', 'unavailable', 'failed', 'invalid'];

/**
 * What a generator tells the metrics (R42, R43): each attempt on a model and the tokens each
 * answer cost, failed answers included (they are billed too). `model` is a configured model or
 * 'offline', never a provider-reported name.
 */
export interface GenerationObserver {
  attempt(model: string, outcome: AttemptOutcome): void;
  tokens(model: string, tokens: GenerationTokens): void;
}

export const NO_OBSERVER: GenerationObserver = Object.freeze({ attempt: () => {}, tokens: () => {} });

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
 * - 'unavailable': unreachable, connection lost, timed out, rate-limited (429) or 5xx -> 503 report_generation_unavailable
 * - 'failed': refusal, safety block, empty or truncated answer, other 4xx -> 502 report_generation_failed
 * - 'invalid': an answer the contract cannot represent (not JSON, wrong shape) -> 502 invalid_generated_report
 * `reason` is for logs and tests only; it never carries provider text, prompts or model names.
 */
export class GenerationError extends Error {
  override readonly name = 'GenerationError';
  readonly kind: 'unavailable' | 'failed' | 'invalid';
  readonly reason: string;
  /** A machine code of the failure when there is one (an errno such as ECONNREFUSED), for logs. */
  readonly code: string | undefined;
  /**
   * The model that answered and the answer's tokens, when the failure is an answer (a refusal,
   * a cut, an invalid report): it was generated, and billed, all the same (R43). Not enumerable:
   * no serialization of the error (a log line's cause, JSON) carries the model's name (R26).
   */
  declare readonly answer: { readonly model: string; readonly tokens: GenerationTokens } | undefined;

  constructor(
    kind: GenerationError['kind'],
    reason: string,
    options?: { cause?: unknown; code?: string | undefined; answer?: GenerationError['answer'] },
  ) {
    super(`report generation ${kind}: ${reason}`, options?.cause === undefined ? undefined : { cause: options.cause });
    this.kind = kind;
    this.reason = reason;
    this.code = options?.code;
    Object.defineProperty(this, 'answer', { value: options?.answer, enumerable: false });
  }
}
