// A local stand-in for the Gemini REST API as @google/genai calls it, in both its forms:
//   Developer API: POST {baseUrl}/v1beta/models/{model}:generateContent, key in `x-goog-api-key`;
//                  GET {baseUrl}/v1beta/models/{model} (models.get);
//   Vertex AI:     POST {baseUrl}/v1beta1/projects/{p}/locations/{l}/publishers/google/models/{m}:generateContent
//                  and GET {baseUrl}/v1beta1/publishers/google/models/{m}, with `Authorization: Bearer`.
// As strict as the real API: every generateContent body passes checkGenerateContentRequest
// (gemini-request-schema.ts) first, and a field the API does not define, or a value outside its
// enum, is answered 400 INVALID_ARGUMENT in Google's error shape, before any programmed answer.
// A model in `retired` answers 404 NOT_FOUND to both calls. Answers are programmable (a queue,
// then a default), every request is logged, and a stalled answer is cut when the client goes
// away or the server stops. Reused by the pipeline's integration tests: start it, point
// GEMINI_BASE_URL at `baseUrl`.
import { createServer } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { checkGenerateContentRequest, FINISH_REASONS, type GeminiApi } from '../../integration/generation/gemini-request-schema.ts';

export interface FakeGeminiRequest {
  readonly method: string;
  /** Path and query, e.g. /v1beta/models/gemini-2.5-flash:generateContent */
  readonly url: string;
  /** The model named in the path, when the path is a generateContent call. */
  readonly model: string | undefined;
  /** Which API the path belongs to (undefined for a path of neither). */
  readonly api: GeminiApi | undefined;
  /** Vertex AI: the project and location of the path. */
  readonly project?: string | undefined;
  readonly location?: string | undefined;
  readonly headers: IncomingHttpHeaders;
  readonly rawBody: string;
  /** The parsed JSON body (undefined when it was not JSON). */
  readonly body: unknown;
  /** performance.now() when the body had arrived. */
  readonly receivedAt: number;
}

export type FakeGeminiAnswer =
  /** A JSON answer (default status 200). */
  | { readonly kind?: 'json'; readonly status?: number; readonly body: unknown; readonly delayMs?: number }
  /** Any body with any content type. */
  | { readonly kind: 'raw'; readonly status?: number; readonly contentType?: string; readonly body: string; readonly delayMs?: number }
  /** Never answers: the client's deadline has to cut it. */
  | { readonly kind: 'stall' }
  /** Sends a 200 and the start of a JSON body, then stalls: reading the answer must be bounded too. */
  | { readonly kind: 'stallBody' }
  /** Drops the connection without an answer. */
  | { readonly kind: 'destroy' }
  /** Sends a 200 and the start of a JSON body, then drops the connection: an answer made, and billed, that never arrived whole. */
  | { readonly kind: 'cutBody' };

export type FakeGeminiResponder = FakeGeminiAnswer | ((request: FakeGeminiRequest, index: number) => FakeGeminiAnswer);

export interface FakeGemini {
  /** Give this to GEMINI_BASE_URL / httpOptions.baseUrl. */
  readonly baseUrl: string;
  /** Every generateContent request received (and any path the fake does not serve), in order. */
  readonly requests: FakeGeminiRequest[];
  /** Every models.get lookup received, in order (R42's start-up check). */
  readonly lookups: FakeGeminiRequest[];
  /** Bodies the strict check refused (400 INVALID_ARGUMENT), with the message sent. */
  readonly refused: { readonly request: FakeGeminiRequest; readonly message: string }[];
  /** Models that are gone: 404 NOT_FOUND to generateContent and models.get. */
  readonly retired: Set<string>;
  /** Answers every models.get of a model not retired (default: the model resource, 200). */
  setLookupAnswer(answer: FakeGeminiAnswer | undefined): void;
  /** Queues answers: each request takes the next one; once empty, the default answers. */
  enqueue(...answers: FakeGeminiResponder[]): void;
  /** The answer when the queue is empty (initially a valid report). */
  setDefault(answer: FakeGeminiResponder): void;
  /** Empties the queue and the log and restores the default answer. */
  reset(): void;
  stop(): Promise<void>;
}

/** A report the contract accepts (spec 2.3). */
export const VALID_REPORT = Object.freeze({
  title: 'Water leak under the kitchen sink',
  description: 'Water is dripping from the trap under the kitchen sink; the cabinet floor is wet.',
  category: 'plumbing',
  priority: 'high',
  suggestedNextStep: 'Send a plumber to replace the trap seal.',
  tags: ['plumbing', 'leak'],
  riskFlags: ['water_damage'],
  confidence: 0.82,
});

export const USAGE_METADATA = Object.freeze({ promptTokenCount: 321, candidatesTokenCount: 87, totalTokenCount: 408 });

/** A finish reason the current SDK defines (its FinishReason enum): the fake sends no other. */
function finish(reason: string): string {
  if (!FINISH_REASONS.includes(reason)) throw new Error(`the fake Gemini sends only current finish reasons; ${reason} is not one`);
  return reason;
}

/** A 200 answer whose one candidate carries `text`. */
export function textAnswer(text: string, finishReason = 'STOP', delayMs?: number): FakeGeminiAnswer {
  finish(finishReason);
  return {
    delayMs,
    body: {
      candidates: [{ content: { role: 'model', parts: [{ text }] }, finishReason, index: 0 }],
      usageMetadata: USAGE_METADATA,
      modelVersion: 'fake-gemini-001',
      responseId: 'fake-response',
    },
  };
}

/**
 * An answer cut at the per-request token limit (finishReason CONTINUATION) with the opaque token
 * that a further request could pass to go on; the SDK follows such tokens on its own unless
 * `automaticContinuation` is false, each a billed request.
 */
export function continuationAnswer(partial = '{"title": "Water leaking under the kitch'): FakeGeminiAnswer {
  return {
    body: {
      candidates: [{ content: { role: 'model', parts: [{ text: partial }] }, finishReason: finish('CONTINUATION'), index: 0, continuationToken: 'Y29udGludWUtaGVyZQ==' }],
      usageMetadata: USAGE_METADATA,
      modelVersion: 'fake-gemini-001',
      responseId: 'fake-response',
    },
  };
}

export const THINKING_USAGE = Object.freeze({ promptTokenCount: 1211, candidatesTokenCount: 143, thoughtsTokenCount: 377, totalTokenCount: 1731 });

/**
 * A Gemini 3 answer: a thought summary part and the answer part, both with a thoughtSignature
 * (the model's opaque record of its reasoning), and the thoughts counted apart in
 * usageMetadata.thoughtsTokenCount.
 */
export function thinkingAnswer(report: unknown = VALID_REPORT, usageMetadata: object = THINKING_USAGE): FakeGeminiAnswer {
  return {
    body: {
      candidates: [
        {
          content: {
            role: 'model',
            parts: [
              { text: 'Weighing the evidence: a leak under a sink is plumbing.', thought: true, thoughtSignature: 'c2lnbmF0dXJlLW9mLXRob3VnaHRz' },
              { text: JSON.stringify(report), thoughtSignature: 'c2lnbmF0dXJlLW9mLWFuc3dlcg==' },
            ],
          },
          finishReason: finish('STOP'),
          index: 0,
        },
      ],
      usageMetadata,
      modelVersion: 'fake-gemini-001',
      responseId: 'fake-response',
    },
  };
}

/** A 429 RESOURCE_EXHAUSTED carrying google.rpc.RetryInfo (`retryDelay` as a protobuf Duration, e.g. "2s"). */
export function rateLimitedAnswer(retryDelay: string | undefined): FakeGeminiAnswer {
  return {
    status: 429,
    body: {
      error: {
        code: 429,
        message: 'You exceeded your current quota, please check your plan and billing details. (secret provider detail)',
        status: 'RESOURCE_EXHAUSTED',
        details: [
          {
            '@type': 'type.googleapis.com/google.rpc.QuotaFailure',
            violations: [{ quotaMetric: 'generativelanguage.googleapis.com/generate_content_requests', quotaId: 'GenerateRequestsPerMinutePerProjectPerModel' }],
          },
          ...(retryDelay === undefined ? [] : [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay }]),
        ],
      },
    },
  };
}

/** The 404 NOT_FOUND the API answers for a retired or unknown model. */
export function modelNotFoundAnswer(model: string): FakeGeminiAnswer {
  return {
    status: 404,
    body: { error: { code: 404, message: `models/${model} is not found for API version v1beta, or is not supported for generateContent.`, status: 'NOT_FOUND' } },
  };
}

/** A 200 answer carrying `report` as the JSON text, the way JSON mode answers. */
export function reportAnswer(report: unknown = VALID_REPORT, delayMs?: number): FakeGeminiAnswer {
  return textAnswer(JSON.stringify(report), 'STOP', delayMs);
}

/** An error answer in Google's error envelope. */
export function errorAnswer(status: number, delayMs?: number): FakeGeminiAnswer {
  const names: Record<number, string> = {
    400: 'INVALID_ARGUMENT',
    403: 'PERMISSION_DENIED',
    404: 'NOT_FOUND',
    429: 'RESOURCE_EXHAUSTED',
    500: 'INTERNAL',
    503: 'UNAVAILABLE',
  };
  return {
    status,
    delayMs,
    body: { error: { code: status, message: `provider says ${status} (secret provider detail)`, status: names[status] ?? 'UNKNOWN' } },
  };
}

/**
 * The Developer API's answer to a key it does not know (wrong, deleted or of another project):
 * 400 INVALID_ARGUMENT with google.rpc.ErrorInfo reason API_KEY_INVALID, in these words (as
 * quoted from the API in cequence-io/openai-scala-client#109 and google-gemini/gemini-cli#25198).
 */
export function invalidKeyAnswer(): FakeGeminiAnswer & { readonly body: unknown } {
  const message = 'API key not valid. Please pass a valid API key.';
  return {
    status: 400,
    body: {
      error: {
        code: 400,
        message,
        status: 'INVALID_ARGUMENT',
        details: [
          { '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'API_KEY_INVALID', domain: 'googleapis.com', metadata: { service: 'generativelanguage.googleapis.com' } },
          { '@type': 'type.googleapis.com/google.rpc.LocalizedMessage', locale: 'en-US', message },
        ],
      },
    },
  };
}

/** A prompt refused before generation: promptFeedback.blockReason and no candidates. */
export function blockedPromptAnswer(blockReason = 'SAFETY'): FakeGeminiAnswer {
  return { body: { promptFeedback: { blockReason }, usageMetadata: { promptTokenCount: 12, totalTokenCount: 12 } } };
}

const DEVELOPER_GENERATE = /^\/v1beta\/models\/([^/:?]+):generateContent(?:\?.*)?$/;
const VERTEX_GENERATE = /^\/v1(?:beta1)?\/projects\/([^/]+)\/locations\/([^/]+)\/publishers\/google\/models\/([^/:?]+):generateContent(?:\?.*)?$/;
const DEVELOPER_GET = /^\/v1beta\/models\/([^/:?]+)(?:\?.*)?$/;
const VERTEX_GET = /^\/v1(?:beta1)?\/publishers\/google\/models\/([^/:?]+)(?:\?.*)?$/;

interface Route {
  readonly call: 'generate' | 'get' | undefined;
  readonly api: GeminiApi | undefined;
  readonly model: string | undefined;
  readonly project?: string;
  readonly location?: string;
}

function route(method: string, url: string): Route {
  let m: RegExpExecArray | null;
  if (method === 'POST' && (m = DEVELOPER_GENERATE.exec(url))) return { call: 'generate', api: 'developer', model: m[1] };
  if (method === 'POST' && (m = VERTEX_GENERATE.exec(url))) return { call: 'generate', api: 'vertex', model: m[3], project: m[1], location: m[2] };
  if (method === 'GET' && (m = DEVELOPER_GET.exec(url))) return { call: 'get', api: 'developer', model: m[1] };
  if (method === 'GET' && (m = VERTEX_GET.exec(url))) return { call: 'get', api: 'vertex', model: m[1] };
  return { call: undefined, api: undefined, model: undefined };
}

/**
 * Who may call, and Google's answer to a caller without credentials. The Developer API wants a
 * key: without one it answers 403 PERMISSION_DENIED "Method doesn't allow unregistered callers"
 * (as quoted from the API in google-gemini/deprecated-generative-ai-python#463 and
 * PublicAffairs/openai-gemini#92). Vertex AI wants an OAuth bearer token: 401 UNAUTHENTICATED.
 */
function unauthenticated(api: GeminiApi, headers: IncomingHttpHeaders, validKeys: readonly string[] | undefined): FakeGeminiAnswer | undefined {
  if (api === 'developer') {
    const key = headers['x-goog-api-key'];
    if (typeof key === 'string' && key !== '') return validKeys === undefined || validKeys.includes(key) ? undefined : invalidKeyAnswer();
    const message =
      "Method doesn't allow unregistered callers (callers without established identity). Please use API Key or other form of API consumer identity to call this API.";
    return { status: 403, body: { error: { code: 403, message, status: 'PERMISSION_DENIED' } } };
  }
  if (/^Bearer \S+$/.test(headers.authorization ?? '')) return undefined;
  return { status: 401, body: { error: { code: 401, message: 'Request is missing required authentication credential.', status: 'UNAUTHENTICATED' } } };
}

/**
 * The Developer API takes a request of at most 20 MB, inline images and text included (Gemini
 * API image-understanding guide, src/generation/README.md "Limits: inline images"); Google's
 * front end refuses a larger body with 400 in these words (the same answer at its earlier 4 MB
 * limit is quoted in google-gemini/deprecated-generative-ai-android#26).
 */
export const DEVELOPER_REQUEST_LIMIT_BYTES = 20 * 1024 * 1024;
function oversized(api: GeminiApi, rawBody: Buffer): string | undefined {
  if (api !== 'developer' || rawBody.length <= DEVELOPER_REQUEST_LIMIT_BYTES) return undefined;
  return `Request payload size exceeds the limit: ${DEVELOPER_REQUEST_LIMIT_BYTES} bytes.`;
}

/** The output limit of every model here, as models.get reports it for the current Flash models. */
export const OUTPUT_TOKEN_LIMIT = 65536;

function modelResource(api: GeminiApi, model: string): unknown {
  return api === 'developer'
    ? { name: `models/${model}`, version: '001', displayName: model, inputTokenLimit: 1048576, outputTokenLimit: OUTPUT_TOKEN_LIMIT, supportedGenerationMethods: ['generateContent', 'countTokens'], thinking: true }
    : { name: `publishers/google/models/${model}`, versionId: '001', launchStage: 'GA', publisherModelTemplate: `projects/{project}/locations/{location}/publishers/google/models/${model}` };
}

/**
 * Gemini refuses an output bound above the model's limit with 400 INVALID_ARGUMENT, in these
 * words (as quoted from the API in BerriAI/litellm#10548 and stackblitz-labs/bolt.diy#955).
 */
function outputBoundProblem(body: unknown): string | undefined {
  const bound = (body as { generationConfig?: { maxOutputTokens?: unknown } }).generationConfig?.maxOutputTokens;
  if (typeof bound !== 'number' || bound <= OUTPUT_TOKEN_LIMIT) return undefined;
  return `Unable to submit request because it has a maxOutputTokens value of ${bound} but the supported range is from 1 (inclusive) to ${OUTPUT_TOKEN_LIMIT + 1} (exclusive). Update the value and try again.`;
}

/**
 * Gemini 3.7 and 3.8 Flash (not Flash-Lite) refuse the MINIMAL thinking level with 400
 * INVALID_ARGUMENT, in these words (the API's answer quoted in fishjar/kiss-translator#1048).
 */
const MINIMAL_REFUSED_BY = ['gemini-3.7-flash', 'gemini-3.8-flash'];

/**
 * Gemini 2.5 models answer any thinkingLevel with 400 INVALID_ARGUMENT in these words
 * (RooCodeInc/Roo-Code#10700, microsoft/vscode#334581); 2.0 models refuse any thinkingConfig
 * ("thinking_config is not supported.", immersive-translate/immersive-translate#2976).
 */
function thinkingLevelProblem(model: string, body: unknown): string | undefined {
  const thinking = (body as { generationConfig?: { thinkingConfig?: { thinkingLevel?: unknown } } }).generationConfig?.thinkingConfig;
  if (/^gemini-2\.0/.test(model) && thinking !== undefined) return 'thinking_config is not supported.';
  const level = thinking?.thinkingLevel;
  if (level !== undefined && /^gemini-2\./.test(model)) return 'Thinking level is not supported for this model.';
  if (level !== 'MINIMAL') return undefined;
  const refuses = MINIMAL_REFUSED_BY.some((family) => (model === family || model.startsWith(`${family}-`)) && !model.startsWith(`${family}-lite`));
  return refuses ? "'minimal' is not a supported thinking level for this model. Allowed values are: medium, low, high." : undefined;
}

export interface FakeGeminiOptions {
  /** Serve HTTPS with this certificate (for the proxy's CONNECT path). */
  readonly tls?: { readonly cert: string | Buffer; readonly key: string | Buffer };
  /** The Developer API keys Google knows; any other key gets invalidKeyAnswer(). Any key when absent. */
  readonly validKeys?: readonly string[];
}

export async function startFakeGemini(options: FakeGeminiOptions = {}): Promise<FakeGemini> {
  const requests: FakeGeminiRequest[] = [];
  const lookups: FakeGeminiRequest[] = [];
  const refused: { request: FakeGeminiRequest; message: string }[] = [];
  const retired = new Set<string>();
  let lookupAnswer: FakeGeminiAnswer | undefined;
  const queue: FakeGeminiResponder[] = [];
  let fallback: FakeGeminiResponder = reportAnswer();
  const sockets = new Set<Socket>();

  const send = (res: ServerResponse, answer: FakeGeminiAnswer): void => {
    if (answer.kind === 'stall') return;
    if (answer.kind === 'stallBody') {
      res.writeHead(200, { 'content-type': 'application/json; charset=UTF-8' });
      res.write('{"candidates": [{"content": {"parts": [{"text": "{\\"title\\"');
      return;
    }
    if (answer.kind === 'destroy') {
      res.socket?.destroy();
      return;
    }
    if (answer.kind === 'cutBody') {
      res.writeHead(200, { 'content-type': 'application/json; charset=UTF-8' });
      res.write('{"candidates": [{"content": {"parts": [{"text": "{\\"title\\"', () => res.socket?.destroy());
      return;
    }
    const write = (): void => {
      if (res.destroyed) return;
      const raw = answer.kind === 'raw';
      res.writeHead(answer.status ?? 200, { 'content-type': raw ? (answer.contentType ?? 'text/plain') : 'application/json; charset=UTF-8' });
      res.end(raw ? answer.body : JSON.stringify(answer.body));
    };
    if (answer.delayMs === undefined || answer.delayMs <= 0) return write();
    const timer = setTimeout(write, answer.delayMs);
    res.on('close', () => clearTimeout(timer));
  };

  const handler = (req: IncomingMessage, res: ServerResponse): void => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const rawBytes = Buffer.concat(chunks);
      const rawBody = rawBytes.toString('utf8');
      let body: unknown;
      try {
        body = JSON.parse(rawBody);
      } catch {
        body = undefined;
      }
      const url = req.url ?? '/';
      const method = req.method ?? 'GET';
      const { call, api, model, project, location } = route(method, url);
      const request: FakeGeminiRequest = { method, url, model, api, project, location, headers: req.headers, rawBody, body, receivedAt: performance.now() };
      if (call === 'get') lookups.push(request);
      const index = call === 'get' ? -1 : requests.push(request) - 1;
      if (call === undefined || api === undefined || model === undefined) {
        return send(res, { status: 404, body: { error: { code: 404, message: 'not found', status: 'NOT_FOUND' } } });
      }
      const refusedCaller = unauthenticated(api, req.headers, options.validKeys);
      if (refusedCaller !== undefined) return send(res, refusedCaller);
      if (retired.has(model)) return send(res, modelNotFoundAnswer(model));
      if (call === 'get') return send(res, lookupAnswer ?? { body: modelResource(api, model) });
      const problem = oversized(api, rawBytes) ?? checkGenerateContentRequest(body, api) ?? outputBoundProblem(body) ?? thinkingLevelProblem(model, body);
      if (problem !== undefined) {
        refused.push({ request, message: problem });
        return send(res, { status: 400, body: { error: { code: 400, message: problem, status: 'INVALID_ARGUMENT' } } });
      }
      const responder = queue.shift() ?? fallback;
      send(res, typeof responder === 'function' ? responder(request, index) : responder);
    });
  };
  const server = options.tls ? createTlsServer({ cert: options.tls.cert, key: options.tls.key }, handler) : createServer(handler);
  server.on(options.tls ? 'secureConnection' : 'connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    baseUrl: `${options.tls ? 'https' : 'http'}://127.0.0.1:${port}`,
    requests,
    lookups,
    refused,
    retired,
    setLookupAnswer: (answer) => {
      lookupAnswer = answer;
    },
    enqueue: (...answers) => void queue.push(...answers),
    setDefault: (answer) => {
      fallback = answer;
    },
    reset: () => {
      queue.length = 0;
      requests.length = 0;
      lookups.length = 0;
      refused.length = 0;
      retired.clear();
      lookupAnswer = undefined;
      fallback = reportAnswer();
    },
    stop: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())));
    },
  };
}
