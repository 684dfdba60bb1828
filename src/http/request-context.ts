// First middleware: a server-generated request id and the headers every response carries
// (ruling R9: x-request-id, cache-control: no-store), plus one access-log line per request.
// The log line never carries headers, bodies or keys (ruling R26).
import { randomUUID } from 'node:crypto';
import type Koa from 'koa';
import type { Logger } from 'pino';
import type { AppState } from './app-state.ts';

export function requestContext(logger: Logger): Koa.Middleware<AppState> {
  return async (ctx, next) => {
    const started = performance.now();
    const requestId = randomUUID();
    const aborter = new AbortController();
    // The response closes before it finished only when the client went away. (The request's
    // own 'close' fires as soon as its body is consumed, so it cannot tell.)
    ctx.res.once('close', () => {
      if (!ctx.res.writableFinished) aborter.abort();
    });
    ctx.state.requestId = requestId;
    ctx.state.abortSignal = aborter.signal;
    ctx.state.log = logger.child({ requestId });
    ctx.set('x-request-id', requestId);
    ctx.set('cache-control', 'no-store');
    try {
      await next();
    } finally {
      ctx.state.log.info(
        {
          method: ctx.method,
          path: ctx.path,
          status: ctx.status,
          code: ctx.state.errorCode,
          ms: Math.round(performance.now() - started),
        },
        'request',
      );
    }
  };
}
