// Every error leaves in the envelope of spec 2.4, built from the catalogue; nothing of an
// unexpected error (message, stack, driver text) reaches the response, only the log.
import type Koa from 'koa';
import { ApiError, isApiError } from '../errors/catalogue.ts';
import type { AppState } from './app-state.ts';
import { describeCause } from '../shared/describe-cause.ts';
import { dependencyFailure } from '../observability/dependency-failure.ts';
import { isTestTrigger } from '../reports/test-mode/step-faults.ts';

function errorBody(error: ApiError, requestId: string): { error: Record<string, unknown> } {
  return {
    error: {
      code: error.code,
      message: error.message,
      requestId,
      ...(error.details === undefined ? {} : { details: error.details }),
    },
  };
}

export function writeError(ctx: Koa.ParameterizedContext<AppState>, error: ApiError): void {
  ctx.status = error.status;
  for (const [name, value] of Object.entries(error.headers)) ctx.set(name, value);
  ctx.body = errorBody(error, ctx.state.requestId);
  ctx.state.errorCode = error.code;
}

export function errorEnvelope(): Koa.Middleware<AppState> {
  return async (ctx, next) => {
    try {
      await next();
    } catch (caught) {
      if (ctx.state.abortSignal.aborted) {
        // The client went away (its connection closed before the answer): nobody to answer,
        // and nothing of ours failed. Whatever the stage reported, it is not an error here.
        ctx.state.log.debug({ cause: describeCause(caught) }, 'client closed the connection');
        writeError(ctx, isApiError(caught) ? caught : new ApiError('internal_error'));
        return;
      }
      if (isApiError(caught)) {
        if (caught.status >= 500 && isTestTrigger(caught)) {
          // R53: asked for by a test key's evidence text; nothing failed.
          ctx.state.log.info({ code: caught.code, mode: 'test' }, 'test-mode trigger');
        } else if (caught.status >= 500) {
          // Once per failed request, with the dependency and a reason from closed lists.
          ctx.state.log.warn({ code: caught.code, ...dependencyFailure(caught), cause: describeCause(caught.cause) }, 'dependency failure');
        }
        writeError(ctx, caught);
      } else {
        ctx.state.log.error({ err: caught }, 'unexpected error');
        writeError(ctx, new ApiError('internal_error'));
      }
    }
  };
}
