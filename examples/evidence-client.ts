// A client to copy: openapi-fetch typed by the types generated from the
// published contract, doing what the contract's retry guidance says ("## Errors" in
// contract/openapi.yaml):
// - one fresh Idempotency-Key per logical request, the same key on every retry of it, so a retry
//   can never create a second report or count a second unit;
// - 503 (a dependency is unavailable; nothing was stored or counted) and a network failure:
//   retried with bounded exponential backoff and full jitter;
// - 429 rate_limit_exceeded: retried after the Retry-After header (never sooner);
// - 429 quota_exceeded: never retried, the error carries details.resetAt;
// - 409 (idempotency), any other 4xx, 500 and 502: never retried automatically;
// - every answer's requestId (the x-request-id header, equal to error.requestId) is kept, for
//   support.
// To use it elsewhere: `npx openapi-typescript <base>/openapi.yaml -o evidence-api.d.ts`,
// `npm install openapi-fetch`, and point the type import below at your generated file.
import createClient from 'openapi-fetch';
import type { components, paths } from '../generated/openapi.d.ts';

export type CreateReportRequest = components['schemas']['CreateEvidenceReportRequest'];
export type EvidenceReport = components['schemas']['EvidenceReport'];
export type CurrentUsage = components['schemas']['CurrentUsage'];
type ErrorBody = components['schemas']['ErrorBody'];

export interface RetryPolicy {
  /** Attempts of one logical request, the first included. */
  maxAttempts: number;
  /** Backoff before retry n (n = 1, 2, ...) is random in [0, min(maxDelayMs, baseDelayMs * 2^(n-1))). */
  baseDelayMs: number;
  maxDelayMs: number;
  /** A Retry-After longer than this is not waited for: the rate-limit error is returned instead. */
  maxRetryAfterMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = { maxAttempts: 5, baseDelayMs: 250, maxDelayMs: 8_000, maxRetryAfterMs: 60_000 };

export interface RetryEvent {
  attempt: number;
  /** Why: the status and code of the answer, or 'network' when there was none. */
  reason: string;
  delayMs: number;
  requestId: string | undefined;
}

export interface ClientOptions {
  baseUrl: string;
  apiKey: string;
  retry?: Partial<RetryPolicy>;
  /** Called before each wait (logging, metrics). */
  onRetry?: (event: RetryEvent) => void;
  fetch?: typeof fetch;
}

export interface Answer<T> {
  data: T;
  /** x-request-id of the answer: quote it when contacting support. */
  requestId: string;
  attempts: number;
  /** true when the service returned the stored result of an earlier attempt with the same key. */
  replayed: boolean;
}

/** An error answer that is not retried (or no longer): branch on `code`, quote `requestId`. */
export class EvidenceApiError extends Error {
  readonly status: number;
  readonly code: string;
  readonly requestId: string | undefined;
  readonly details: ErrorBody['details'];
  readonly attempts: number;

  constructor(status: number, body: ErrorBody | undefined, requestId: string | undefined, attempts: number) {
    super(body?.message ?? `HTTP ${status}`);
    this.name = 'EvidenceApiError';
    this.status = status;
    this.code = body?.code ?? 'unknown';
    this.requestId = body?.requestId ?? requestId;
    this.details = body?.details;
    this.attempts = attempts;
  }

  /** For quota_exceeded: when the monthly quota resets (do not retry before). */
  get resetAt(): string | undefined {
    return this.code === 'quota_exceeded' ? String(this.details?.resetAt) : undefined;
  }
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export function createEvidenceClient(options: ClientOptions) {
  const policy: RetryPolicy = { ...DEFAULT_RETRY_POLICY, ...options.retry };
  const api = createClient<paths>({ baseUrl: options.baseUrl, headers: { 'x-api-key': options.apiKey }, fetch: options.fetch });

  /** Runs one logical request: `send` is one attempt; the same closure (same key) is used for every retry. */
  async function withRetries<T>(send: () => Promise<{ data?: T; error?: { error: ErrorBody }; response: Response }>): Promise<Answer<T>> {
    for (let attempt = 1; ; attempt++) {
      let answer: Awaited<ReturnType<typeof send>> | undefined;
      try {
        answer = await send();
      } catch (networkError) {
        // No answer (connection refused or reset): safe to resend, the key makes it the same request.
        if (attempt >= policy.maxAttempts) throw networkError;
      }
      const requestId = answer?.response.headers.get('x-request-id') ?? undefined;
      if (answer?.data !== undefined) {
        const replayed = answer.response.headers.get('idempotent-replayed') === 'true';
        return { data: answer.data, requestId: requestId ?? '', attempts: attempt, replayed };
      }
      const status = answer?.response.status;
      const body = answer?.error?.error;
      const delayMs = answer === undefined ? backoff(attempt) : retryDelay(attempt, status ?? 0, body, answer.response);
      if (delayMs === undefined || attempt >= policy.maxAttempts) throw new EvidenceApiError(status ?? 0, body, requestId, attempt);
      options.onRetry?.({ attempt, reason: answer === undefined ? 'network' : `${status} ${body?.code}`, delayMs, requestId });
      await sleep(delayMs);
    }
  }

  /** Full jitter: random in [0, min(cap, base * 2^(attempt-1))). */
  function backoff(attempt: number): number {
    return Math.floor(Math.random() * Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1)));
  }

  /** How long to wait before retrying this answer, or undefined: do not retry it. */
  function retryDelay(attempt: number, status: number, body: ErrorBody | undefined, response: Response): number | undefined {
    if (status === 503) return backoff(attempt);
    if (status === 429 && body?.code === 'rate_limit_exceeded') {
      const seconds = Number(response.headers.get('retry-after') ?? body.details?.retryAfterSeconds);
      if (!Number.isFinite(seconds) || seconds < 0 || seconds * 1000 > policy.maxRetryAfterMs) return undefined;
      return seconds * 1000;
    }
    return undefined; // quota_exceeded, 409, other 4xx, 500, 502: not retried automatically
  }

  return {
    /** POST /v1/evidence/reports; pass `idempotencyKey` only to resume a logical request of your own. */
    createReport(body: CreateReportRequest, idempotencyKey: string = crypto.randomUUID()): Promise<Answer<EvidenceReport>> {
      return withRetries(() => api.POST('/v1/evidence/reports', { body, params: { header: { 'Idempotency-Key': idempotencyKey } } }));
    },
    /**
     * GET /v1/evidence/reports/{id}: one of your reports, as its 201 returned it, by the id of
     * that 201 (after a timeout there is no id: createReport again with the same idempotencyKey
     * tells whether the report was made). A 404 evidence_report_not_found (unknown, or not yours
     * in this key's mode) is not retried.
     */
    getReport(id: string): Promise<Answer<EvidenceReport>> {
      return withRetries(() => api.GET('/v1/evidence/reports/{id}', { params: { path: { id } } }));
    },
    /** GET /v1/usage/current (reading writes nothing, so it is retried the same way). */
    currentUsage(): Promise<Answer<CurrentUsage>> {
      return withRetries(() => api.GET('/v1/usage/current'));
    },
  };
}
