// The HTTP edge in front of the Koa application: the bounds of R51 on connections and on the
// time a peer may take, and the load shedding of R52, which answers before the application
// (and so before authentication) runs, the way a load balancer would.
import type { IncomingMessage, ServerOptions, ServerResponse } from 'node:http';
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { Config } from '../config.ts';
import { ERROR_CATALOGUE, type ErrorCode } from '../errors/catalogue.ts';
import type { Telemetry } from '../observability/telemetry.ts';
import type { AdmissionControl } from './admission-control.ts';
import { withPlace } from '../shared/outside-wait.ts';
import { endOfTurn } from './end-of-turn.ts';

type EdgeConfig = Pick<Config, 'headersTimeoutMs' | 'requestTimeoutMs' | 'keepAliveTimeoutMs'>;

/**
 * R51 as node:http options: headers within HEADERS_TIMEOUT_MS, the whole request within
 * REQUEST_TIMEOUT_MS (both answered 408 and closed), an idle keep-alive connection closed after
 * KEEP_ALIVE_TIMEOUT_MS. Node checks the first two every `connectionsCheckingInterval` (30 s by
 * default, which would let a slow peer stay up to 30 s past its bound): a quarter of the
 * shorter bound, at most a second.
 */
export function edgeServerOptions(config: EdgeConfig): ServerOptions {
  return {
    headersTimeout: config.headersTimeoutMs,
    requestTimeout: config.requestTimeoutMs,
    keepAliveTimeout: config.keepAliveTimeoutMs,
    // Node waits this much past keepAliveTimeout by default; the bound is the bound. (Clients
    // are told `Keep-Alive: timeout=` in whole seconds, rounded down, so they stop first.)
    keepAliveTimeoutBuffer: 0,
    connectionsCheckingInterval: Math.max(25, Math.min(1_000, Math.floor(Math.min(config.headersTimeoutMs, config.requestTimeoutMs) / 4))),
  };
}

/** The API operations admission control guards, and the 503 code each is refused with (R52). */
const GUARDED: ReadonlyMap<string, { operation: string; code: ErrorCode }> = new Map([
  ['POST /v1/evidence/reports', { operation: 'createEvidenceReport', code: 'report_generation_unavailable' }],
  ['GET /v1/usage/current', { operation: 'getCurrentUsage', code: 'current_usage_unavailable' }],
]);
/** R54: reading a report back is free but still work for the instance: shed like the rest. */
const REPORT_READ = { operation: 'getEvidenceReport', code: 'report_generation_unavailable' } as const;
const REPORT_PATH = /^\/v1\/evidence\/reports\/[^/]+$/;

function guardOf(method: string | undefined, path: string): { operation: string; code: ErrorCode } | undefined {
  if (method === 'GET' && REPORT_PATH.test(path)) return REPORT_READ;
  return GUARDED.get(`${method ?? ''} ${path}`);
}
// (A shed request is logged at debug level only: under overload a line per refusal would cost
// what shedding saves; ers_admission_rejections_total counts them.)

/** Seconds a refused caller is asked to wait: the queue a refusal reacts to drains within a second or two. */
const SHED_RETRY_AFTER_SECONDS = 1;

interface EdgeListenerOptions {
  /** The application (Koa's callback). */
  handle: (req: IncomingMessage, res: ServerResponse) => Promise<void>;
  /** Undefined: admission control off (ADMISSION_MAX_QUEUE_MS=0). */
  admission: AdmissionControl | undefined;
  /** R35: while draining, every answer closes its connection. */
  draining: () => boolean;
  telemetry: Telemetry;
  logger: Logger;
  /** R51: an answer the peer does not take within this long is abandoned (its socket closed). */
  responseTimeoutMs: number;
}

export function edgeListener(options: EdgeListenerOptions): (req: IncomingMessage, res: ServerResponse) => void {
  const { handle, admission, telemetry, logger, responseTimeoutMs } = options;
  const run = (req: IncomingMessage, res: ServerResponse) => {
    handle(req, res).then(
      () => boundResponse(res, responseTimeoutMs),
      (error: unknown) => logger.error({ err: error }, 'request handler failed'),
    );
  };
  return (req, res) => {
    if (options.draining()) res.setHeader('connection', 'close');
    const guarded = guardOf(req.method, pathOf(req.url));
    // Health, readiness, the contract and the docs are never shed (R52); nor is what the API
    // answers 404 or 405 without work.
    if (!guarded || !admission) {
      run(req, res);
      return;
    }
    // The ticket is the request's place: a long wait on the generator lends it (waitingOutside).
    const ticket = admission.admit((place) => withPlace(place, () => run(req, res)));
    if (ticket) {
      // The place is given back when the answer is done or the client went away, queued or not.
      res.once('close', () => ticket.done());
      return;
    }
    telemetry.admissionRejected('saturated');
    logger.debug({ operation: guarded.operation, code: guarded.code }, 'request shed');
    // Written with the turn's other answers (end-of-turn.ts); a client gone meanwhile gets nothing.
    void endOfTurn().then(() => {
      if (!res.destroyed) shed(res, guarded.code);
    });
  };
}

function pathOf(url: string | undefined): string {
  const raw = url ?? '';
  const query = raw.indexOf('?');
  return query === -1 ? raw : raw.slice(0, query);
}

/**
 * The refusal of a saturated instance: the contract's 503 for the operation, in the error
 * envelope with its request id, and Retry-After. Built without the application, so it costs a
 * small fraction of an admitted request.
 */
export function shed(res: ServerResponse, code: ErrorCode): void {
  const requestId = randomUUID();
  const body = JSON.stringify({ error: { code, message: ERROR_CATALOGUE[code].message, requestId } });
  res.writeHead(503, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(body),
    'x-request-id': requestId,
    'cache-control': 'no-store',
    'retry-after': String(SHED_RETRY_AFTER_SECONDS),
  });
  res.end(body);
}

/**
 * R51: once the application has handed its answer over, the peer must take it within the
 * bound; a client that stops reading (a /docs download left unread) loses its connection
 * instead of holding it and the answer's memory for ever.
 */
function boundResponse(res: ServerResponse, timeoutMs: number): void {
  if (res.writableFinished || res.destroyed) return;
  const timer = setTimeout(() => res.destroy(), timeoutMs).unref();
  res.once('close', () => clearTimeout(timer));
}
