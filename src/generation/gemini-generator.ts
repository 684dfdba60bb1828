// The Gemini adapter of the ReportGenerator port, through @google/genai (ruling R2), on the
// Developer API with a key or on Vertex AI with Application Default Credentials (R44).
//
// Models (R42): GEMINI_MODEL is a list tried in order. A 404 (retired or unknown model), a 429,
// a 5xx or a service that could not be connected to sends the request on to the next model; a
// 429 whose google.rpc.RetryInfo delay fits the deadline is retried on the same model after that
// delay, and one whose delay does not fit is never retried on it. The last model keeps the
// single retry of a transient failure it always had (R24). A connection lost once made is never
// asked again, of any model: Google may have answered, and billed, already. Only when every
// model failed does the request fail, with the last failure.
//
// Time bound: one deadline, timeoutMs after the call starts, covers every attempt on every
// model, every pause and the reading of the answer. It aborts the SDK's fetch through
// config.abortSignal, and each attempt is raced against it too, so nothing inside the SDK (or
// the credential lookup) can hold the call past it. The SDK's own retry is off: it retries only
// when httpOptions.retryOptions is set (ApiClient.apiCall of 3.1.0), and it is never set here.
//
// Settings (R43): no temperature unless GEMINI_TEMPERATURE is set (Gemini 3 models loop at low
// temperatures; their default is 1.0), thinkingConfig.thinkingLevel from GEMINI_THINKING_LEVEL
// (Gemini 3 and later; see takesThinkingLevel), maxOutputTokens from GEMINI_MAX_OUTPUT_TOKENS.
import { GoogleGenAI, ThinkingLevel as SdkThinkingLevel } from '@google/genai';
import type { GenerateContentParameters, GenerateContentResponse } from '@google/genai';
import type { Logger } from 'pino';
import { requestLog } from '../observability/request-log.ts';
import { modelId } from './model-id.ts';
import type { ThinkingLevel } from '../config.ts';
import { abortableDelay } from './abortable-delay.ts';
import { attemptOutcome, classifyCallError, fallsThrough, readCandidate, readTokenUsage, readTokens, retryDelayMs } from './gemini-answer.ts';
import { SYSTEM_INSTRUCTION, buildUserParts } from './gemini-prompt.ts';
import type { GeminiSchema } from './gemini-schema.ts';
import { GenerationError, NO_OBSERVER } from './report-generator.ts';
import type { GenerationInput, GenerationObserver, GenerationOutput, ReportGenerator } from './report-generator.ts';
import type { AuthClient } from 'google-auth-library';
import type { VertexCredentials } from './vertex-credentials.ts';

export const GEMINI_DEFAULT_BASE_URL = 'https://generativelanguage.googleapis.com';
/** Pinned so that neither the SDK's default nor GOOGLE_GENAI_API_VERSION moves the endpoint. */
const GEMINI_API_VERSION = 'v1beta';
/** Vertex AI's version of the same surface (the SDK's own default for Vertex AI). */
const VERTEX_API_VERSION = 'v1beta1';

const THINKING_LEVELS: Readonly<Record<ThinkingLevel, SdkThinkingLevel>> = {
  minimal: SdkThinkingLevel.MINIMAL,
  low: SdkThinkingLevel.LOW,
  medium: SdkThinkingLevel.MEDIUM,
  high: SdkThinkingLevel.HIGH,
};

export interface GeminiReportGeneratorOptions {
  /** Developer API key; absent means Vertex AI (`vertex`). */
  readonly apiKey?: string | undefined;
  /** R44: Vertex AI for this project and location, with these credentials. */
  readonly vertex?: { readonly project: string | undefined; readonly location: string; readonly credentials: VertexCredentials } | undefined;
  /** R42: tried in order, the primary first. */
  readonly models: readonly string[];
  /** GEMINI_BASE_URL; default the public endpoint (never the SDK's environment variables). */
  readonly baseUrl?: string | undefined;
  /** The fetch the SDK sends with (R45: generatorFetch when an egress proxy is configured); Node's own when undefined. */
  readonly fetch?: typeof fetch | undefined;
  /** GENERATOR_TIMEOUT_MS: the whole call, every model and pause included. */
  readonly timeoutMs: number;
  /** Derived from the contract: see geminiResponseSchema() in create-report-generator.ts. */
  readonly responseSchema: GeminiSchema;
  /**
   * R24: the contract's check of an answer (throws GenerationError 'invalid'), so that an
   * attempt counts as `ok` only for a report the contract accepts, and as `invalid` otherwise
   * (R42's outcomes), whether the text was not JSON or JSON the contract cannot represent.
   */
  readonly checkCandidate: (candidate: unknown) => unknown;
  /** R43: unset, the model's default (1.0 for Gemini 3). */
  readonly temperature?: number | undefined;
  /** R43: default low. */
  readonly thinkingLevel?: ThinkingLevel;
  /** R43: default 8192, far above a report. */
  readonly maxOutputTokens?: number;
  /** Lines about fallbacks and retries, with fixed reasons and the model's position only. */
  readonly logger?: Pick<Logger, 'debug' | 'warn'>;
  /** R42, R43: attempts and tokens for the metrics. */
  readonly observer?: GenerationObserver;
  /** Pause before the retry of a transient failure on the last model. Default 250 ms. */
  readonly retryDelayMs?: number;
  /** Retry (after any pause) only when this much time is left. Default min(5 s, timeoutMs / 2). */
  readonly minRetryWindowMs?: number;
}

/**
 * R43, settings follow the model family: thinkingLevel is Gemini 3's setting. Gemini 2.5 models
 * think by a token budget of their own and have answered a thinkingLevel with 400 INVALID_ARGUMENT
 * "Thinking level is not supported for this model." (RooCodeInc/Roo-Code#10700 for
 * gemini-2.5-flash, microsoft/vscode#334581 for gemini-2.5-pro), which does not fall through to
 * the next model: a 2.5 fallback would fail every request it got. 2.0 and older models refuse any
 * thinkingConfig. Those families get none, and think (or not) as their defaults say. An alias
 * (`gemini-flash-latest`) is taken for a current model: name the model itself to be sure.
 */
export function takesThinkingLevel(model: string): boolean {
  return !/^gemini-(?:1|2)\./.test(modelId(model));
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

/** The SDK client, with the credentials' client it sends with on Vertex AI. */
interface SdkClient {
  readonly sdk: GoogleGenAI;
  readonly authClient: AuthClient | undefined;
}

/** What the start-up lookup of one model found (R42). */
type ModelLookup = { readonly model: string; readonly found: true; readonly outputTokenLimit: number | undefined } | { readonly model: string; readonly found: false; readonly reason: string; readonly status: number | undefined };

export class GeminiReportGenerator implements ReportGenerator {
  readonly #options: GeminiReportGeneratorOptions;
  readonly #models: readonly string[];
  readonly #timeoutMs: number;
  readonly #observer: GenerationObserver;
  readonly #retryDelayMs: number;
  readonly #minRetryWindowMs: number;
  #client: SdkClient | undefined;
  /** Models that answered 404 since the start (warned about once each). */
  readonly #notFound = new Set<string>();

  constructor(options: GeminiReportGeneratorOptions) {
    if (options.models.length === 0) throw new Error('GeminiReportGenerator needs at least one model');
    if (options.vertex === undefined && (options.apiKey === undefined || options.apiKey === '')) {
      throw new Error('GeminiReportGenerator needs an API key or Vertex AI');
    }
    this.#options = options;
    this.#models = options.models;
    this.#timeoutMs = options.timeoutMs;
    this.#observer = options.observer ?? NO_OBSERVER;
    this.#retryDelayMs = options.retryDelayMs ?? 250;
    this.#minRetryWindowMs = options.minRetryWindowMs ?? Math.min(5_000, Math.floor(options.timeoutMs / 2));
    if (options.vertex === undefined) {
      this.#client = {
        sdk: this.#newSdk({
          apiKey: options.apiKey,
          vertexai: false,
          apiVersion: GEMINI_API_VERSION,
          // No retryOptions (so no SDK retry) and no timeout (the deadline below is the bound).
          httpOptions: { baseUrl: options.baseUrl ?? GEMINI_DEFAULT_BASE_URL, ...(options.fetch === undefined ? {} : { fetch: options.fetch }) },
        }),
        authClient: undefined,
      };
    }
  }

  /**
   * R39: an image travels inline as base64 (buildUserParts), and @google/genai sends the request
   * as JSON.stringify of the whole body, which fetch then encodes to bytes: three copies of the
   * base64 text live until the call returns (the SDK's own objects share the part strings).
   */
  imageCopyBytes(image: { readonly sizeBytes: number }): number {
    return 3 * base64Length(image.sizeBytes);
  }

  /**
   * The SDK's client, made with explicit options. Its constructor also reads GOOGLE_API_KEY,
   * GEMINI_API_KEY, GOOGLE_CLOUD_PROJECT and GOOGLE_CLOUD_LOCATION from the environment and
   * says on the console which it would prefer ("Both GOOGLE_API_KEY and GEMINI_API_KEY are set.
   * Using GOOGLE_API_KEY."), although explicit options win: a plain-text line in the JSON logs
   * that names the wrong credential. The constructor is synchronous, so its console notes are
   * taken for its duration alone and kept as debug lines.
   */
  #newSdk(options: ConstructorParameters<typeof GoogleGenAI>[0]): GoogleGenAI {
    const notes: string[] = [];
    const { warn, debug, info, log } = console;
    const note = (...args: unknown[]): void => void notes.push(args.map(String).join(' '));
    Object.assign(console, { warn: note, debug: note, info: note, log: note });
    try {
      return new GoogleGenAI(options);
    } finally {
      Object.assign(console, { warn, debug, info, log });
      for (const sdkNote of notes) this.#options.logger?.debug({ sdkNote }, '@google/genai noted at construction (the explicit options apply)');
    }
  }

  /**
   * The SDK client. On Vertex AI it is made on first use: the credentials (a key file, or the
   * metadata server) and, when GOOGLE_CLOUD_PROJECT is unset, the project come from ADC then,
   * and a failure is that request's 503 rather than a failed start (R44).
   */
  async #sdk(signal: AbortSignal): Promise<SdkClient> {
    if (this.#client !== undefined) return this.#client;
    const vertex = this.#options.vertex;
    if (vertex === undefined) throw new Error('unreachable: Developer API client is made in the constructor');
    let credentials: Awaited<ReturnType<VertexCredentials['client']>>;
    try {
      credentials = await untilAborted(vertex.credentials.client(vertex.project), signal);
    } catch (error) {
      // A lookup this request stopped waiting for may never end: the next one starts afresh (R33).
      if (signal.aborted) vertex.credentials.reset();
      throw error;
    }
    this.#client ??= {
      sdk: this.#newSdk({
        vertexai: true,
        project: credentials.project,
        location: vertex.location,
        apiVersion: VERTEX_API_VERSION,
        googleAuthOptions: { authClient: credentials.authClient },
        httpOptions: {
          ...(this.#options.baseUrl === undefined ? {} : { baseUrl: this.#options.baseUrl }),
          ...(this.#options.fetch === undefined ? {} : { fetch: this.#options.fetch }),
        },
      }),
      authClient: credentials.authClient,
    };
    return this.#client;
  }

  /**
   * R44: a valid token on the client the SDK sends with. A token that could not be had, or that
   * this request stopped waiting for, drops the credentials and the SDK client made with them (if
   * no other request has replaced them meanwhile), so that the next request asks afresh instead
   * of joining a token request that may never end (R33).
   */
  async #vertexToken(vertex: NonNullable<GeminiReportGeneratorOptions['vertex']>, client: SdkClient, signal: AbortSignal): Promise<void> {
    const { authClient } = client;
    if (authClient === undefined) throw new Error('unreachable: a Vertex AI client has its credentials');
    try {
      await untilAborted(vertex.credentials.token(authClient), signal);
    } catch (error) {
      if (signal.aborted) vertex.credentials.reset(authClient);
      if (this.#client === client) this.#client = undefined;
      throw error;
    }
  }

  async generate(input: GenerationInput, signal?: AbortSignal): Promise<GenerationOutput> {
    const started = performance.now();
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(new GenerationError('unavailable', 'timeout')), this.#timeoutMs);
    const onCallerAbort = (): void => deadline.abort(new GenerationError('unavailable', 'aborted'));
    if (signal?.aborted) onCallerAbort();
    signal?.addEventListener('abort', onCallerAbort, { once: true });
    try {
      return await this.#generate(input, deadline.signal, started);
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onCallerAbort);
    }
  }

  async #generate(input: GenerationInput, signal: AbortSignal, started: number): Promise<GenerationOutput> {
    const parts = buildUserParts(input);
    let last: GenerationError | undefined;
    for (const [index, model] of this.#models.entries()) {
      const isLast = index === this.#models.length - 1;
      let retried = false;
      for (;;) {
        let response: GenerateContentResponse;
        try {
          const client = await this.#sdk(signal);
          if (this.#options.vertex !== undefined) await this.#vertexToken(this.#options.vertex, client, signal);
          response = await untilAborted(client.sdk.models.generateContent(this.#request(model, parts, signal)), signal);
        } catch (error) {
          // Once the deadline or the caller has aborted, that is the outcome, whatever was thrown.
          const failure = signal.aborted ? (signal.reason as GenerationError) : classifyCallError(error);
          // A caller that went away says nothing of the model (the request is counted 499).
          if (failure.reason !== 'aborted') this.#observer.attempt(model, attemptOutcome(failure));
          last = failure;
          // Neither a connection lost once made nor missing credentials is asked again (fallsThrough).
          if (signal.aborted || !fallsThrough(failure)) throw failure;
          const remaining = (): number => this.#timeoutMs - (performance.now() - started);
          // R42: the provider says when to come back; wait that long when it fits, on this model.
          const delay = retryDelayMs(error);
          if (delay !== undefined && !retried && remaining() - delay >= this.#minRetryWindowMs) {
            retried = true;
            this.#logger()?.debug({ modelIndex: index, reason: failure.reason, delayMs: delay }, 'report generation rate-limited, retrying after RetryInfo delay');
            await this.#pause(delay, signal);
            continue;
          }
          // R42: a 429 with a delay is retried on this model only after that delay (above), never
          // sooner by the retry below: with no model left, that 429 is the answer.
          if (delay !== undefined && isLast) throw failure;
          if (failure.reason === 'http_404' && !this.#notFound.has(model)) {
            // A retirement while running: said once per model and process (a state of the
            // service, not of one request); every attempt is in ers_generator_attempts_total.
            this.#notFound.add(model);
            this.#logger()?.warn(
              { modelIndex: index, reason: failure.reason },
              isLast
                ? 'the last model of GEMINI_MODEL answered 404 (retired or unknown): no model is left to fall back to; replace it'
                : 'a model of GEMINI_MODEL answered 404 (retired or unknown): requests fall back to the next model; replace it',
            );
          }
          if (!isLast) {
            this.#logger()?.debug({ modelIndex: index, reason: failure.reason }, 'report generation falling back to the next model of GEMINI_MODEL');
            break;
          }
          // The last model: one retry of a transient failure (R24), never of a 404 (no other model is left).
          if (!retried && failure.reason !== 'http_404' && remaining() - this.#retryDelayMs >= this.#minRetryWindowMs) {
            retried = true;
            this.#logger()?.debug({ modelIndex: index, reason: failure.reason }, 'report generation attempt failed, retrying once');
            await this.#pause(this.#retryDelayMs, signal);
            continue;
          }
          throw failure;
        }
        const tokens = readTokens(response.usageMetadata);
        this.#observer.tokens(model, tokens);
        let candidate: unknown;
        try {
          candidate = readCandidate(response);
          this.#options.checkCandidate(candidate);
        } catch (error) {
          // An answer (a refusal, a cut, non-JSON text or JSON the contract refuses): another
          // model is not asked.
          const kind = error instanceof GenerationError ? error.kind : 'failed';
          const reason = error instanceof GenerationError ? error.reason : 'provider_error';
          const failure = new GenerationError(kind, reason, { answer: { model, tokens } });
          this.#observer.attempt(model, attemptOutcome(failure));
          throw failure;
        }
        this.#observer.attempt(model, 'ok');
        return {
          candidate,
          generator: 'gemini',
          model,
          latencyMs: Math.round(performance.now() - started),
          tokens,
          tokenUsage: readTokenUsage(response.usageMetadata),
        };
      }
    }
    throw last ?? new GenerationError('unavailable', 'no_model');
  }

  /** The request's own logger when a request is being served (its requestId, R41), else the adapter's. */
  #logger(): Pick<Logger, 'debug' | 'warn'> | undefined {
    if (this.#options.logger === undefined) return undefined;
    return requestLog() ?? this.#options.logger;
  }

  async #pause(ms: number, signal: AbortSignal): Promise<void> {
    await abortableDelay(ms, signal).catch(() => {
      throw signal.reason as GenerationError;
    });
  }

  #request(model: string, parts: ReturnType<typeof buildUserParts>, signal: AbortSignal): GenerateContentParameters {
    const temperature = this.#options.temperature;
    return {
      model,
      contents: [{ role: 'user', parts }],
      config: {
        systemInstruction: SYSTEM_INSTRUCTION,
        responseMimeType: 'application/json',
        responseSchema: this.#options.responseSchema,
        ...(temperature === undefined ? {} : { temperature }),
        ...(takesThinkingLevel(model) ? { thinkingConfig: { thinkingLevel: THINKING_LEVELS[this.#options.thinkingLevel ?? 'low'] } } : {}),
        maxOutputTokens: this.#options.maxOutputTokens ?? 8192,
        candidateCount: 1,
        // The SDK follows an answer cut with finishReason CONTINUATION by sending the whole
        // request again with its continuation token, without limit, each request billed and
        // their tokens summed (its GenerateContentConfig: "Defaults to true"). One generation is
        // one request here: a cut answer is `truncated`, as MAX_TOKENS is (R24, R43).
        automaticContinuation: false,
        abortSignal: signal,
      },
    };
  }

  /**
   * R42: looks each configured model up once (models.get), all at once, each bounded by
   * `timeoutMs`, with its output limit when the API reports one (R43). A 404 is `found: false`
   * with status 404; a lookup that could not be made (no answer, a 5xx, no credentials) is
   * `found: false` with its reason.
   */
  async lookUpModels(timeoutMs: number): Promise<ModelLookup[]> {
    return Promise.all(
      this.#models.map(async (model): Promise<ModelLookup> => {
        const signal = AbortSignal.timeout(timeoutMs);
        try {
          const client = await this.#sdk(signal);
          // As before a generation: a credential that cannot be had is named as such
          // (credentials_<why>), not as the provider's error the SDK would make of it.
          if (this.#options.vertex !== undefined) await this.#vertexToken(this.#options.vertex, client, signal);
          const found = await untilAborted(client.sdk.models.get({ model, config: { abortSignal: signal } }), signal);
          // The Developer API reports the model's output limit; Vertex AI's publisher model does not.
          const limit = found.outputTokenLimit;
          return { model, found: true, outputTokenLimit: typeof limit === 'number' && Number.isSafeInteger(limit) && limit > 0 ? limit : undefined };
        } catch (error) {
          const failure = signal.aborted ? new GenerationError('unavailable', 'timeout') : classifyCallError(error);
          const status = /^http_(\d{3})$/.exec(failure.reason)?.[1];
          return { model, found: false, reason: failure.reason, status: status === undefined ? undefined : Number(status) };
        }
      }),
    );
  }
}
