// The request's first own middleware (inside answerAtEndOfTurn, which only times the answer's
// write): a server-generated request id and the headers every response carries
// (ruling R9: x-request-id, cache-control: no-store), plus one access-log line per request.
// The log line never carries headers, bodies or keys (ruling R26). It is also where a request's
// metrics are counted and its server span starts and ends (R40, R41): every line logged for
// the request carries its requestId and, when tracing, its traceId.
import { randomUUID } from 'node:crypto';
import type Koa from 'koa';
import type { Logger } from 'pino';
import type { AppState } from './app-state.ts';
import { arrivalOf } from './arrival.ts';
import { answeredByEdge } from './edge.ts';
import { withRequestLog } from '../observability/request-log.ts';
import { noopTelemetry, type Telemetry } from '../observability/telemetry.ts';
import { operationLabel, ROUTES } from '../observability/label-values.ts';
import { redactApiKeys } from '../accounts/api-key-secret.ts';

/** The status a request is logged and counted with when its client went away first. */
const CLIENT_CLOSED_REQUEST = 499;
/** The status of a request the edge cut at REQUEST_TIMEOUT_MS (R51). */
const REQUEST_TIMEOUT = 408;

export function requestContext(logger: Logger, telemetry: Telemetry = noopTelemetry): Koa.Middleware<AppState> {
  return async (ctx, next) => {
    // From the edge's arrival when admission control may have queued it (R52): the wait counts.
    const started = arrivalOf(ctx.req) ?? performance.now();
    const requestId = randomUUID();
    const observed = telemetry.request(ctx.method, ctx.path, ctx.req.headers);
    const aborter = new AbortController();
    // The response closes before it finished only when the client went away. (The request's
    // own 'close' fires as soon as its body is consumed, so it cannot tell.)
    ctx.res.once('close', () => {
      if (!ctx.res.writableFinished) aborter.abort();
    });
    ctx.state.requestId = requestId;
    ctx.state.abortSignal = aborter.signal;
    ctx.state.log = logger.child(observed.traceId === undefined ? { requestId } : { requestId, traceId: observed.traceId });
    ctx.set('x-request-id', requestId);
    ctx.set('cache-control', 'no-store');
    try {
      await withRequestLog(ctx.state.log, () => observed.run(next));
    } finally {
      const ms = performance.now() - started;
      const { operationId: operation } = ctx.state;
      // A client that went away before its answer is no failure of ours, whatever the unwinding
      // stage threw: logged and counted as 499 ("client closed request", nginx's custom) with no
      // error code, so that the 5xx alert rules never read slow or impatient clients as an outage.
      const gone = aborter.signal.aborted;
      // R51: a request whose body did not arrive within REQUEST_TIMEOUT_MS was answered 408 by
      // the edge, under this request's id, and its connection closed: that is what is logged.
      const status = gone ? (answeredByEdge(ctx.res) ? REQUEST_TIMEOUT : CLIENT_CLOSED_REQUEST) : ctx.status;
      const code = gone ? undefined : ctx.state.errorCode;
      observed.end({ operation, status, code, seconds: ms / 1000 });
      // R53: a test key's requests say so (the answer's ers-mode header), so its triggered 5xx are not read as outages.
      const mode = ctx.response.get('ers-mode') === 'test' ? 'test' : undefined;
      ctx.state.log.info({ method: ctx.method, path: loggedPath(operation, ctx.path), operation, status, code, mode, ms: Math.round(ms) }, 'request');
    }
  };
}

/**
 * The access line's path (R26): an operation's contract path (`/v1/evidence/reports/{id}`, as the
 * span's `http.route`), so no report id is logged; any other path as sent, with whatever looks
 * like an API key in it replaced (a client that put its key in the URL by mistake).
 */
export function loggedPath(operation: string | undefined, path: string): string {
  const label = operationLabel(operation);
  return label === 'other' ? redactApiKeys(path) : ROUTES[label];
}
