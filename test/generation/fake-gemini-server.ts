// A local stand-in for the Gemini REST API as @google/genai calls it:
//   POST {baseUrl}/v1beta/models/{model}:generateContent, key in `x-goog-api-key`, JSON body.
// Answers are programmable (a queue, then a default), every request is logged, and a stalled
// answer is cut when the client goes away or the server stops. Reused by the pipeline's
// integration tests: start it, point GEMINI_BASE_URL at `baseUrl`.
import { createServer } from 'node:http';
import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export interface FakeGeminiRequest {
  readonly method: string;
  /** Path and query, e.g. /v1beta/models/gemini-2.5-flash:generateContent */
  readonly url: string;
  /** The model named in the path, when the path is a generateContent call. */
  readonly model: string | undefined;
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
  | { readonly kind: 'destroy' };

export type FakeGeminiResponder = FakeGeminiAnswer | ((request: FakeGeminiRequest, index: number) => FakeGeminiAnswer);

export interface FakeGemini {
  /** Give this to GEMINI_BASE_URL / httpOptions.baseUrl. */
  readonly baseUrl: string;
  /** Every request received, in order. */
  readonly requests: FakeGeminiRequest[];
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

/** A 200 answer whose one candidate carries `text`. */
export function textAnswer(text: string, finishReason = 'STOP', delayMs?: number): FakeGeminiAnswer {
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

/** A prompt refused before generation: promptFeedback.blockReason and no candidates. */
export function blockedPromptAnswer(blockReason = 'SAFETY'): FakeGeminiAnswer {
  return { body: { promptFeedback: { blockReason }, usageMetadata: { promptTokenCount: 12, totalTokenCount: 12 } } };
}

const GENERATE = /^\/v1beta\/models\/([^/:?]+):generateContent(?:\?.*)?$/;

export async function startFakeGemini(): Promise<FakeGemini> {
  const requests: FakeGeminiRequest[] = [];
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

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const rawBody = Buffer.concat(chunks).toString('utf8');
      let body: unknown;
      try {
        body = JSON.parse(rawBody);
      } catch {
        body = undefined;
      }
      const url = req.url ?? '/';
      const request: FakeGeminiRequest = {
        method: req.method ?? 'GET',
        url,
        model: GENERATE.exec(url)?.[1],
        headers: req.headers,
        rawBody,
        body,
        receivedAt: performance.now(),
      };
      const index = requests.push(request) - 1;
      if (request.method !== 'POST' || request.model === undefined) {
        return send(res, { status: 404, body: { error: { code: 404, message: 'not found', status: 'NOT_FOUND' } } });
      }
      const responder = queue.shift() ?? fallback;
      send(res, typeof responder === 'function' ? responder(request, index) : responder);
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    baseUrl: `http://127.0.0.1:${port}`,
    requests,
    enqueue: (...answers) => void queue.push(...answers),
    setDefault: (answer) => {
      fallback = answer;
    },
    reset: () => {
      queue.length = 0;
      requests.length = 0;
      fallback = reportAnswer();
    },
    stop: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())));
    },
  };
}
