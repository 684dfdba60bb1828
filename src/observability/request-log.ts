// R41: every log line of a request carries its requestId (and, when tracing, its traceId). The
// request's child logger is ctx.state.log at the edge; code that runs for a request far from
// Koa's context (a generator adapter deciding to fall back to the next model) finds it here.
// One AsyncLocalStorage, entered once per request by the request context: the ports keep no
// logger parameter.
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Logger } from 'pino';

const scope = new AsyncLocalStorage<Logger>();

/** Runs `fn` (the rest of a request) with `log` as the request's logger. */
export function withRequestLog<T>(log: Logger, fn: () => T): T {
  return scope.run(log, fn);
}

/** The logger of the request this code runs for, if any. */
export function requestLog(): Logger | undefined {
  return scope.getStore();
}
