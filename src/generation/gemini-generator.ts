// The Gemini adapter of the ReportGenerator port (issue 5), through @google/genai (ruling R2).
//
// Time bound: one deadline, timeoutMs after the call starts, covers every attempt, the back-off
// and the reading of the answer. It aborts the SDK's fetch through config.abortSignal, and the
// attempt is raced against it too, so nothing inside the SDK can hold the call past it.
// The SDK's own retry is off: it retries only when httpOptions.retryOptions is set (verified in
// ApiClient.apiCall of 3.1.0), and it is never set here. We retry at most once, only a
// transient failure ('unavailable' other than the deadline itself), and only when at least
// minRetryWindowMs would remain after the back-off.
import { GoogleGenAI } from '@google/genai';
import type { GenerateContentParameters, GenerateContentResponse } from '@google/genai';
import type { Logger } from 'pino';
import { abortableDelay } from './abortable-delay.ts';
import { classifyCallError, readCandidate, readTokenUsage } from './gemini-answer.ts';
import { SYSTEM_INSTRUCTION, buildUserParts } from './gemini-prompt.ts';
import type { GeminiSchema } from './gemini-schema.ts';
import { GenerationError } from './report-generator.ts';
import type { GenerationInput, GenerationOutput, ReportGenerator } from './report-generator.ts';

export const GEMINI_DEFAULT_BASE_URL = 'https://generativelanguage.googleapis.com';
/** Pinned so that neither the SDK's default nor GOOGLE_GENAI_API_VERSION moves the endpoint. */
export const GEMINI_API_VERSION = 'v1beta';

export interface GeminiReportGeneratorOptions {
  readonly apiKey: string;
  readonly model: string;
  /** GEMINI_BASE_URL; default the public endpoint (never the SDK's environment variables). */
  readonly baseUrl?: string | undefined;
  /** GENERATOR_TIMEOUT_MS: the whole call, retry included. */
  readonly timeoutMs: number;
  /** Derived from the contract: see geminiResponseSchema() in create-report-generator.ts. */
  readonly responseSchema: GeminiSchema;
  /** Debug lines about retries, with fixed reasons only. */
  readonly logger?: Pick<Logger, 'debug'>;
  /** Pause before the single retry. Default 250 ms. */
  readonly retryDelayMs?: number;
  /** Retry only when this much time is left after the pause. Default min(5 s, timeoutMs / 2). */
  readonly minRetryWindowMs?: number;
  /** Default 0.2: reports should be sober and repeatable. */
  readonly temperature?: number;
}

/** Settles with `promise`, or rejects with the signal's reason as soon as it aborts. */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  promise.catch(() => undefined); // a late rejection after the abort is expected, not unhandled
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason as Error);
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

/** Length of the base64 text of `bytes` bytes. */
export const base64Length = (bytes: number): number => 4 * Math.ceil(bytes / 3);

export class GeminiReportGenerator implements ReportGenerator {
  readonly #client: GoogleGenAI;
  readonly #model: string;
  readonly #timeoutMs: number;
  readonly #responseSchema: GeminiSchema;
  readonly #logger: Pick<Logger, 'debug'> | undefined;
  readonly #retryDelayMs: number;
  readonly #minRetryWindowMs: number;
  readonly #temperature: number;

  constructor(options: GeminiReportGeneratorOptions) {
    this.#client = new GoogleGenAI({
      apiKey: options.apiKey,
      vertexai: false,
      apiVersion: GEMINI_API_VERSION,
      // No retryOptions (so no SDK retry) and no timeout (the deadline below is the bound).
      httpOptions: { baseUrl: options.baseUrl ?? GEMINI_DEFAULT_BASE_URL },
    });
    this.#model = options.model;
    this.#timeoutMs = options.timeoutMs;
    this.#responseSchema = options.responseSchema;
    this.#logger = options.logger;
    this.#retryDelayMs = options.retryDelayMs ?? 250;
    this.#minRetryWindowMs = options.minRetryWindowMs ?? Math.min(5_000, Math.floor(options.timeoutMs / 2));
    this.#temperature = options.temperature ?? 0.2;
  }

  /**
   * R39: an image travels inline as base64 (buildUserParts), and @google/genai sends the request
   * as JSON.stringify of the whole body, which fetch then encodes to bytes: three copies of the
   * base64 text live until the call returns (the SDK's own objects share the part strings).
   */
  imageCopyBytes(image: { readonly sizeBytes: number }): number {
    return 3 * base64Length(image.sizeBytes);
  }

  async generate(input: GenerationInput, signal?: AbortSignal): Promise<GenerationOutput> {
    const started = performance.now();
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(new GenerationError('unavailable', 'timeout')), this.#timeoutMs);
    const onCallerAbort = (): void => deadline.abort(new GenerationError('unavailable', 'aborted'));
    if (signal?.aborted) onCallerAbort();
    signal?.addEventListener('abort', onCallerAbort, { once: true });
    try {
      const response = await this.#call(this.#request(input, deadline.signal), deadline.signal, started);
      return {
        candidate: readCandidate(response),
        generator: 'gemini',
        model: this.#model,
        latencyMs: Math.round(performance.now() - started),
        tokenUsage: readTokenUsage(response.usageMetadata),
      };
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onCallerAbort);
    }
  }

  #request(input: GenerationInput, signal: AbortSignal): GenerateContentParameters {
    return {
      model: this.#model,
      contents: [{ role: 'user', parts: buildUserParts(input) }],
      config: {
        systemInstruction: SYSTEM_INSTRUCTION,
        responseMimeType: 'application/json',
        responseSchema: this.#responseSchema,
        temperature: this.#temperature,
        candidateCount: 1,
        abortSignal: signal,
      },
    };
  }

  async #call(request: GenerateContentParameters, signal: AbortSignal, started: number): Promise<GenerateContentResponse> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await untilAborted(this.#client.models.generateContent(request), signal);
      } catch (error) {
        // Once the deadline or the caller has aborted, that is the outcome, whatever the SDK threw.
        const failure = signal.aborted ? (signal.reason as GenerationError) : classifyCallError(error);
        const remaining = this.#timeoutMs - (performance.now() - started) - this.#retryDelayMs;
        const transient = failure.kind === 'unavailable' && !signal.aborted;
        if (attempt > 1 || !transient || remaining < this.#minRetryWindowMs) throw failure;
        this.#logger?.debug({ reason: failure.reason }, 'report generation attempt failed, retrying once');
        await abortableDelay(this.#retryDelayMs, signal).catch(() => {
          throw signal.reason as GenerationError;
        });
      }
    }
  }
}
