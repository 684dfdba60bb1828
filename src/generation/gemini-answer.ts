// How Gemini's outcomes map onto ruling R24:
//   unreachable, connection lost, timed out, 408, 429, 5xx -> 'unavailable' (503 report_generation_unavailable)
//   other 4xx, prompt blocked, safety finish, refusal,
//   empty answer, truncated (MAX_TOKENS, CONTINUATION)   -> 'failed'      (502 report_generation_failed)
//   an answer that is not JSON                           -> 'invalid'     (502 invalid_generated_report)
// JSON the contract cannot represent is toReportResult's to reject (also 'invalid').
// Reasons are fixed words chosen here: no provider message, model name, prompt or token count.
import { ApiError } from '@google/genai';
import type { GenerateContentResponse, GenerateContentResponseUsageMetadata } from '@google/genai';
import { GenerationError } from './report-generator.ts';
import type { AttemptOutcome, GenerationTokens, TokenUsage } from './report-generator.ts';

/** Finish reasons that mean the answer was withheld for safety or policy. */
const SAFETY_FINISH = new Set([
  'SAFETY',
  'RECITATION',
  'BLOCKLIST',
  'PROHIBITED_CONTENT',
  'SPII',
  'IMAGE_SAFETY',
  'IMAGE_PROHIBITED_CONTENT',
  'IMAGE_RECITATION',
]);

/**
 * Codes of a connection that was never made: the name did not resolve, the address could not be
 * reached, nobody listened, the connect timed out, the server's certificate was refused. Not a
 * byte of the request can have reached the provider.
 */
const NOT_CONNECTED =
  /^(ECONNREFUSED|ENOTFOUND|EAI_[A-Z]+|EHOSTUNREACH|EHOSTDOWN|ENETUNREACH|ENETDOWN|EADDRNOTAVAIL|UND_ERR_CONNECT_TIMEOUT|ERR_TLS_CERT_ALTNAME_INVALID|CERT_[A-Z_]+|UNABLE_TO_[A-Z_]+|DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN)$/;
/** Errno and undici codes of any other socket failure. */
const SOCKET_CODE = /^(E[A-Z]+|UND_ERR_[A-Z_]+)$/;

/**
 * A socket-level failure, as fetch (undici) throws it: a TypeError ('fetch failed' before the
 * status, 'terminated' when the body is cut after it) whose cause chain carries a code.
 * 'unreachable' when the connection was never made (the egress proxy's 5xx to the tunnel, or its
 * closing the connection before the tunnel, included); 'connection_lost' when it broke once made
 * (terminated, ECONNRESET, EPIPE, UND_ERR_SOCKET, any other code or none): the request may have
 * been delivered, and answered; 'proxy_refused' when the egress proxy refused the tunnel (4xx).
 * Undefined when it is no socket failure at all.
 */
function networkFailure(error: unknown): 'unreachable' | 'connection_lost' | 'proxy_refused' | undefined {
  let fetchFailed = false;
  let notConnected = false;
  let lost = false;
  for (let current = error, depth = 0; current instanceof Error && depth < 5; current = current.cause, depth++) {
    // The egress proxy (R45) answered the tunnel with a status: Google was never reached. A 4xx
    // (407, 403) is the proxy's configuration refusing it, the same for every model; a 5xx (502,
    // 503, 504) is the proxy failing to reach Google, as a connection that was never made.
    // undici's fixed text carries only the status.
    const refusal = /^Proxy response \((\d{3})\) !== 200 when HTTP Tunneling$/.exec(current.message);
    if (refusal !== null) return Number(refusal[1]) >= 500 ? 'unreachable' : 'proxy_refused';
    // The proxy closed the connection before the tunnel was set up (generatorFetch's undici):
    // nothing was sent to Google, whatever socket error it carries.
    if ((current as { code?: unknown }).code === 'UND_ERR_PRX_CONN') return 'unreachable';
    // The status had arrived: the body was cut after Google answered.
    if (current instanceof TypeError && current.message === 'terminated') return 'connection_lost';
    if (current instanceof TypeError && current.message === 'fetch failed') fetchFailed = true;
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && NOT_CONNECTED.test(code)) notConnected = true;
    else if (typeof code === 'string' && SOCKET_CODE.test(code)) lost = true;
  }
  if (notConnected && !lost) return 'unreachable';
  return lost || fetchFailed ? 'connection_lost' : undefined;
}

/**
 * The `details` of Google's error body (google.rpc.Status), which the SDK's ApiError carries as
 * JSON in its message; some front ends wrap the body in an array. Only fixed fields of them are
 * read by the callers, never the message itself.
 */
function errorDetails(error: ApiError): { '@type'?: unknown; reason?: unknown; retryDelay?: unknown }[] {
  let body: unknown;
  try {
    body = JSON.parse(error.message);
  } catch {
    // Not the JSON body (the SDK wraps a non-JSON answer in its own message).
    return [];
  }
  const envelope = (Array.isArray(body) ? body[0] : body) as { error?: { details?: unknown } } | undefined;
  const details = envelope?.error?.details;
  return Array.isArray(details) ? (details as { '@type'?: unknown; reason?: unknown; retryDelay?: unknown }[]) : [];
}

/**
 * The machine-readable reason of Google's error (google.rpc.ErrorInfo). A wrong or revoked
 * GEMINI_API_KEY is 400 INVALID_ARGUMENT with reason API_KEY_INVALID (the Developer API's answer,
 * as quoted in cequence-io/openai-scala-client#109 and google-gemini/gemini-cli#25198), the same
 * status as a request the model refuses: the reason tells the operator which of the two to fix.
 */
function errorInfoReason(error: ApiError): string | undefined {
  for (const detail of errorDetails(error)) {
    if (detail?.['@type'] === 'type.googleapis.com/google.rpc.ErrorInfo' && typeof detail.reason === 'string') return detail.reason;
  }
  return undefined;
}

/** An error thrown while calling Gemini, as a GenerationError. */
export function classifyCallError(error: unknown): GenerationError {
  if (error instanceof GenerationError) return error;
  if (error instanceof ApiError) {
    const status = error.status;
    if (status === 408 || status === 429 || status >= 500) return new GenerationError('unavailable', `http_${status}`);
    if (status === 400 && errorInfoReason(error) === 'API_KEY_INVALID') return new GenerationError('failed', 'api_key_invalid');
    return new GenerationError('failed', `http_${status}`);
  }
  // R24: both are 503; R42 sets them apart (fallsThrough).
  const network = networkFailure(error);
  if (network !== undefined) return new GenerationError('unavailable', network);
  // A 2xx whose body is not the protocol's JSON (a misbehaving proxy, for instance).
  if (error instanceof SyntaxError) return new GenerationError('failed', 'malformed_provider_response');
  return new GenerationError('failed', 'provider_error');
}

/** R42: the attempt outcome of a failure (ers_generator_attempts_total). */
export function attemptOutcome(failure: GenerationError): AttemptOutcome {
  if (failure.reason === 'http_404') return 'not_found';
  if (failure.reason === 'http_429') return 'rate_limited';
  return failure.kind;
}

/**
 * R42: the failures that send the request on to the next model, or again to the last one: the
 * model is gone or unknown (404), out of quota or capacity (429), the service failed (5xx, 408),
 * or the connection was never made; none of them carries an answer. Not a connection lost once
 * made ('connection_lost'): the request may have been answered, and billed, already, and asking
 * again would pay twice (R24 makes it a 503 all the same). Not a 400, a refusal or an answer
 * that is not JSON: the same on any model. Not missing credentials: the same for every model.
 */
export function fallsThrough(failure: GenerationError): boolean {
  return /^(http_(404|408|429|5\d\d)|unreachable)$/.test(failure.reason);
}

/**
 * R42: the delay of a 429's google.rpc.RetryInfo, in milliseconds, or undefined. The SDK's
 * ApiError carries the error body as JSON in its message; `retryDelay` is a protobuf Duration
 * in its JSON form ("2s", "0.5s"). Only that number is read, nothing else of the body.
 */
export function retryDelayMs(error: unknown): number | undefined {
  if (!(error instanceof ApiError) || error.status !== 429) return undefined;
  for (const detail of errorDetails(error)) {
    if (detail?.['@type'] !== 'type.googleapis.com/google.rpc.RetryInfo' || typeof detail.retryDelay !== 'string') continue;
    const match = /^(\d{1,6})(?:\.(\d{1,9}))?s$/.exec(detail.retryDelay);
    if (match === null) return undefined;
    return Math.ceil(Number(`${match[1]}.${match[2] ?? '0'}`) * 1000);
  }
  return undefined;
}

/** Strips one Markdown code fence, which some models add even in JSON mode. */
function unfence(text: string): string {
  const fenced = /^```(?:json)?\s*\n([\s\S]*?)\n?```$/i.exec(text.trim());
  return fenced?.[1] ?? text;
}

/** The parsed JSON candidate of a 2xx answer, or the GenerationError it amounts to. */
export function readCandidate(response: GenerateContentResponse): unknown {
  if (response.promptFeedback?.blockReason !== undefined) throw new GenerationError('failed', 'prompt_blocked');
  const candidate = response.candidates?.[0];
  if (candidate === undefined) throw new GenerationError('failed', 'empty_answer');
  const finish = candidate.finishReason as string | undefined;
  // CONTINUATION: cut at the per-request token limit, not finished (a further request could go on).
  if (finish === 'MAX_TOKENS' || finish === 'CONTINUATION') throw new GenerationError('failed', 'truncated');
  if (finish !== undefined && SAFETY_FINISH.has(finish)) throw new GenerationError('failed', 'safety_block');
  if (finish !== undefined && finish !== 'STOP' && finish !== 'FINISH_REASON_UNSPECIFIED') {
    throw new GenerationError('failed', 'refused');
  }
  const text = (candidate.content?.parts ?? [])
    .filter((part) => typeof part.text === 'string' && part.thought !== true)
    .map((part) => part.text)
    .join('');
  if (text.trim() === '') throw new GenerationError('failed', 'empty_answer');
  try {
    return JSON.parse(unfence(text)) as unknown;
  } catch {
    throw new GenerationError('invalid', 'not_json');
  }
}

const count = (value: number | undefined): number | null =>
  typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : null;

/**
 * R43: input, output and thinking tokens of an answer. `candidatesTokenCount` excludes the
 * thoughts, which `thoughtsTokenCount` reports apart; missing counts are 0.
 */
export function readTokens(usage: GenerateContentResponseUsageMetadata | undefined): GenerationTokens {
  return {
    input: count(usage?.promptTokenCount) ?? 0,
    output: count(usage?.candidatesTokenCount) ?? 0,
    thinking: count(usage?.thoughtsTokenCount) ?? 0,
  };
}

/** Token counts for storage with the report (never exposed, never logged at info). */
export function readTokenUsage(usage: GenerateContentResponseUsageMetadata | undefined): TokenUsage | null {
  if (usage === undefined) return null;
  return {
    promptTokens: count(usage.promptTokenCount),
    outputTokens: count(usage.candidatesTokenCount),
    totalTokens: count(usage.totalTokenCount),
  };
}
