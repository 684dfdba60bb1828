// The HTTP edge in front of the Koa application: the bounds of R51 on connections and on the
// time a peer may take, and the load shedding of R52, which answers before the application
// (and so before authentication) runs, the way a load balancer would.
import type { IncomingMessage, ServerOptions, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { randomUUID } from 'node:crypto';
import { parse as parseLegacyUrl } from 'node:url';
import type { Logger } from 'pino';
import type { Config } from '../config.ts';
import { ERROR_CATALOGUE, type ErrorCode } from '../errors/catalogue.ts';
import type { Telemetry } from '../observability/telemetry.ts';
import type { AdmissionControl } from './admission-control.ts';
import { withPlace } from '../shared/outside-wait.ts';
import { endOfTurn } from './end-of-turn.ts';
import { markArrival } from './arrival.ts';

type EdgeConfig = Pick<Config, 'headersTimeoutMs' | 'requestTimeoutMs' | 'keepAliveTimeoutMs'>;

/** How much shorter than KEEP_ALIVE_TIMEOUT_MS the Keep-Alive hint is (a bound of a second or less is hinted as 0). */
const HINT_MARGIN_MS = 1_000;

/**
 * R51 as node:http options: headers within HEADERS_TIMEOUT_MS, the whole request within
 * REQUEST_TIMEOUT_MS (both answered 408 and closed), an idle keep-alive connection closed after
 * KEEP_ALIVE_TIMEOUT_MS. Node checks the first two every `connectionsCheckingInterval` (30 s by
 * default, which would let a slow peer stay up to 30 s past its bound): a quarter of the
 * shorter bound, at most a second.
 */
export function edgeServerOptions(config: EdgeConfig): ServerOptions {
  // An idle connection is closed at KEEP_ALIVE_TIMEOUT_MS exactly; clients are told a second
  // less (node hints `Keep-Alive: timeout=` as keepAliveTimeout in whole seconds, rounded down,
  // and closes keepAliveTimeoutBuffer later). A client may reuse a connection until the hint:
  // were the hint the close itself (5 s and 5 s), a request sent just inside it would cross the
  // close on the wire and be lost, a POST that cannot be retried safely.
  const hintMs = config.keepAliveTimeoutMs > HINT_MARGIN_MS ? config.keepAliveTimeoutMs - HINT_MARGIN_MS : config.keepAliveTimeoutMs;
  return {
    headersTimeout: config.headersTimeoutMs,
    requestTimeout: config.requestTimeoutMs,
    keepAliveTimeout: hintMs,
    keepAliveTimeoutBuffer: config.keepAliveTimeoutMs - hintMs,
    connectionsCheckingInterval: Math.max(25, Math.min(1_000, Math.floor(Math.min(config.headersTimeoutMs, config.requestTimeoutMs) / 4))),
    // Node answers an HTTP/1.1 request without Host with a bare 400 of its own, before any
    // handler and without R9's headers. The service names no virtual hosts, so it serves it like
    // any other request (its answer carries x-request-id and cache-control).
    requireHostHeader: false,
  };
}

/** Answers the edge cut short (R51's timeouts): their requests are logged and counted as 408, not 499. */
const cutByEdge = new WeakSet<ServerResponse>();

/**
 * Connections whose current request was answered before its body had arrived (an early 401 or
 * 400): node reads the rest of the body and drops it. Until it has, a timeout or an unreadable
 * rest is no new request, and the request already has its one answer.
 */
const answeredBeforeItsBody = new WeakSet<Duplex>();

/** Notes a request answered before its body was read whole, until that body has been read. */
function noteEarlyAnswer(req: IncomingMessage, res: ServerResponse): void {
  // A request without a body (most GETs) cannot be answered before it: no listener for those.
  if (req.headers['content-length'] === undefined && req.headers['transfer-encoding'] === undefined) return;
  // Taken now: by the answer's end node may have let go of it (a connection it closed).
  const socket: Duplex | null = req.socket;
  res.once('finish', () => {
    if (req.complete || socket === null || socket.destroyed) return;
    answeredBeforeItsBody.add(socket);
    req.once('end', () => answeredBeforeItsBody.delete(socket));
  });
}

/** True when the edge answered this request's response itself, with 408, and closed its connection. */
export function answeredByEdge(res: ServerResponse): boolean {
  return cutByEdge.has(res);
}

interface ClientErrorOptions {
  logger: Logger;
  telemetry: Telemetry;
  /** HEADERS_TIMEOUT_MS: how long a head that timed out took, for the duration histogram. */
  headersTimeoutMs: number;
}

/**
 * The server's 'clientError': a request node:http could not take (R51's timeouts, a malformed
 * or oversized head). Node's own answer is a bare status line; this one is closed the same way,
 * with the headers every answer carries (R9: x-request-id, cache-control: no-store) and, for a
 * request the service cannot read (400), the contract's error envelope.
 * As Node does, nothing is written once the request has an answer (begun while its body timed
 * out, or finished early, before its body had arrived, as a 401 is: answeredBeforeItsBody), nor
 * to a peer that is gone.
 * Each answer is logged and counted like any request, so that the id its client keeps names a
 * line and an operator sees slow peers being cut: a head that never arrived whole (no operation
 * is known) is logged here; a body that timed out belongs to a request the application already
 * has, which keeps its own id and line, logged 408 there (requestContext, answeredByEdge).
 */
export function clientErrorAnswerer({ logger, telemetry, headersTimeoutMs }: ClientErrorOptions): (error: NodeJS.ErrnoException, socket: Duplex) => void {
  return (error, socket) => {
    const inFlight = (socket as Duplex & { _httpMessage?: ServerResponse | null })._httpMessage ?? undefined;
    if (error.code !== 'ECONNRESET' && socket.writable && !inFlight?.headersSent && !answeredBeforeItsBody.has(socket)) {
      // Only R51's timeouts keep node's own status (408: the request never arrived whole, so there
      // is nothing to judge). Anything else is a request the service cannot read, 400
      // `invalid_request_payload` in the envelope: headers over node's size limit (node says 431)
      // and oversized chunk extensions (node says 413) among them, as a body over its limit is 400
      // (R6: 431 and 413 are not in the contract, whose status lists SDKs and gateways build on).
      const [status, reason] = error.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? [408, 'Request Timeout'] : [400, 'Bad Request'];
      const ownId = inFlight?.getHeader('x-request-id');
      const requestId = typeof ownId === 'string' ? ownId : randomUUID();
      const code: ErrorCode | undefined = status === 400 ? 'invalid_request_payload' : undefined;
      const body = code === undefined ? '' : JSON.stringify({ error: { code, message: ERROR_CATALOGUE[code].message, requestId } });
      // R53: a body cut after a test key was authenticated is still a test key's answer.
      const testMode = inFlight?.getHeader('ers-mode') === 'test';
      // Written, then the connection destroyed, as node:http itself does (the write goes out first).
      socket.write(
        `HTTP/1.1 ${status} ${reason}\r\nconnection: close\r\nx-request-id: ${requestId}\r\ncache-control: no-store\r\n` +
          (testMode ? 'ers-mode: test\r\n' : '') +
          (body === '' ? '' : 'content-type: application/json; charset=utf-8\r\n') +
          `content-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
      );
      // A request whose body timed out is logged by the application under its own id, as 408.
      // (With a request in flight, any other error is its client ending the connection mid-body:
      // that stays 499, a client gone.)
      if (inFlight !== undefined) {
        if (status === 408) cutByEdge.add(inFlight);
      } else {
        telemetry.request('', '', {}).end({ operation: undefined, status, code, seconds: status === 408 ? headersTimeoutMs / 1000 : 0 });
        logger.info({ requestId, status, code, reason: error.code ?? 'unknown' }, 'request cut at the edge');
      }
    }
    socket.destroy();
  };
}

/** The API operations admission control guards, and the 503 code each is refused with (R52). */
interface Guard {
  operation: string;
  code: ErrorCode;
}
const GUARDED: ReadonlyMap<string, Guard> = new Map([
  ['POST /v1/evidence/reports', { operation: 'createEvidenceReport', code: 'report_generation_unavailable' }],
  ['GET /v1/usage/current', { operation: 'getCurrentUsage', code: 'current_usage_unavailable' }],
]);
/** R54: reading a report back is free but still work for the instance: shed like the rest. */
const REPORT_READ = { operation: 'getEvidenceReport', code: 'report_generation_unavailable' } as const;
const REPORT_PATH = /^\/v1\/evidence\/reports\/[^/]+$/;

function guardOf(method: string | undefined, path: string): Guard | undefined {
  if (method === 'GET' && REPORT_PATH.test(path)) return REPORT_READ;
  return GUARDED.get(`${method ?? ''} ${path}`);
}
// (A shed request is logged at debug level only, with the request id its answer carries: under
// overload a line per refusal would cost what shedding saves; ers_admission_rejections_total
// counts them.)

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
  const run = (req: IncomingMessage, res: ServerResponse): Promise<void> =>
    handle(req, res).then(
      () => boundResponse(res, responseTimeoutMs),
      (error: unknown) => logger.error({ err: error }, 'request handler failed'),
    );
  const refuse = (res: ServerResponse, { operation, code }: Guard) => {
    telemetry.admissionRejected('saturated');
    // The id its client receives, so that a refusal a client reports can be found (at debug level).
    const requestId = randomUUID();
    logger.debug({ requestId, operation, code }, 'request shed');
    // Written with the turn's other answers (end-of-turn.ts); a client gone meanwhile gets nothing.
    void endOfTurn().then(() => {
      if (res.destroyed) return;
      // R35: draining may have begun since the request arrived; the answer is what counts.
      if (options.draining()) res.setHeader('connection', 'close');
      shed(res, code, requestId);
    });
  };
  return (req, res) => {
    if (options.draining()) res.setHeader('connection', 'close');
    noteEarlyAnswer(req, res);
    const guarded = guardOf(req.method, routedPath(req.url));
    // Health, readiness, the contract and the docs are never shed (R52); nor is what the API
    // answers 404 or 405 without work.
    if (!guarded || !admission) {
      void run(req, res);
      return;
    }
    markArrival(req);
    // The ticket is the request's place: a long wait on the generator lends it (waitingOutside),
    // and it is given back when the work has ended; a client that goes away takes a queued
    // request out of the queue (abandon).
    const ticket = admission.admit(
      (place) => void withPlace(place, () => run(req, res)).finally(() => place.done()),
      () => refuse(res, guarded),
    );
    if (ticket) {
      res.once('close', () => ticket.abandon());
      return;
    }
    refuse(res, guarded);
  };
}

/**
 * The path the router will match, so that no spelling of a guarded operation passes the shedder
 * and is still served: the request target's path without its query or fragment, from an
 * absolute-form target (`POST http://host/v1/evidence/reports`, which Koa reduces to its path)
 * too, and without trailing slashes (openapi-backend ignores them when it routes).
 */
export function routedPath(url: string | undefined): string {
  let path = url ?? '';
  if (!path.startsWith('/')) {
    // Read as Koa reads it (parseurl, that is node:url's legacy parse), not by WHATWG rules,
    // which refuse `http://h:99999/...` or `http://[zz]/...` and remove dot segments: Koa still
    // routes those to the operation, so the shedder must see the same path. (Koa calls the same
    // parser on such a target anyway, so no new deprecation warning is raised here.)
    path = parseLegacyUrl(path).pathname ?? '';
  }
  const end = path.search(/[?#]/);
  if (end !== -1) path = path.slice(0, end);
  while (path.length > 1 && path.endsWith('/')) path = path.slice(0, -1);
  return path;
}

/**
 * The refusal of a saturated instance: the contract's 503 for the operation, in the error
 * envelope with its request id, and Retry-After. Built without the application, so it costs a
 * small fraction of an admitted request.
 */
export function shed(res: ServerResponse, code: ErrorCode, requestId: string = randomUUID()): void {
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
