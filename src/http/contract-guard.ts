// Response validation of every API response (the contract is the source of truth): a response
// that breaks the contract never leaves. In production it becomes 500 internal_error and an
// error log line; tests pass `onViolation` and fail loudly.
import type Koa from 'koa';
import { ApiError } from '../errors/catalogue.ts';
import type { AppState } from './app-state.ts';
import { writeError } from './error-envelope.ts';
import type { ResponseChecker } from './api-front.ts';

export interface ContractViolation {
  operationId: string;
  status: number;
  errors: string[];
}

export function contractGuard(
  checkResponse: ResponseChecker,
  onViolation: (violation: ContractViolation) => void,
): Koa.Middleware<AppState> {
  return async (ctx, next) => {
    await next();
    const operationId = ctx.state.operationId;
    if (operationId === undefined) return;
    const errors = checkResponse(operationId, ctx.status, ctx.body, ctx.response.headers);
    if (errors.length === 0) return;
    ctx.state.log.error({ operationId, status: ctx.status, errors }, 'response breaks the contract');
    onViolation({ operationId, status: ctx.status, errors });
    writeError(ctx, new ApiError('internal_error'));
  };
}
