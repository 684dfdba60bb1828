import type { Logger } from 'pino';

/** Per-request state carried on Koa's ctx.state. */
export interface AppState {
  requestId: string;
  log: Logger;
  /** Aborted when the client goes away, so work in flight can stop early. */
  abortSignal: AbortSignal;
  operationId?: string;
  /** Set when the response is an error, for the access log. */
  errorCode?: string;
}
