// The front of the pipeline, read top to bottom in the specification's order (section 1;
// rulings R5, R6, R8, R11, R29), one named function per part:
//   routeOf            openapi-backend's router: 404 not_found, 405 method_not_allowed
//   1_authenticate     authenticateCaller: the x-api-key header only, before any body is read
//                      (R5): 401 missing_api_key, invalid_api_key; 503
//   2_validate         readIntake (content type R6, Idempotency-Key R11, body size, JSON syntax),
//                      validateAgainstContract (openapi-backend's Ajv validator, R8: 400
//                      invalid_request_payload with details), then the operation's own checks
//                      (the application limits of R7: 422)
//   the operation's handler, with the principal and the input as arguments.
// Responses are checked against the contract by checkResponse (contract-guard.ts).
import { OpenAPIBackend, SetMatchType } from 'openapi-backend';
import type { Document, Operation as ContractOperation, Request as OpenApiRequest } from 'openapi-backend';
import type Koa from 'koa';
import type { Logger } from 'pino';
import { ApiError } from '../errors/catalogue.ts';
import type { Principal } from '../auth/principal.ts';
import { readApiKey } from './api-key-header.ts';
import { readIntake, type Intake } from './request-intake.ts';
import { waitingOutside } from '../shared/outside-wait.ts';
import { customizeAjv } from './validation-formats.ts';
import { firstViolation } from './validation-details.ts';
import type { AppState } from './app-state.ts';
import { noopTelemetry, type Telemetry } from '../observability/telemetry.ts';

/** What an operation handler returns; the front writes it to Koa. */
interface ApiResponse {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

/**
 * openapi-backend decodes each path parameter with decodeURIComponent, which throws on a
 * malformed escape (`%E0%A4%A`, a lone `%`). Such a path is read literally (every `%` escaped),
 * so its parameter is a text that names nothing: the contract's 404, never a 500.
 */
function literalIfMalformed(path: string): string {
  if (!path.includes('%')) return path;
  try {
    decodeURIComponent(path);
    return path;
  } catch {
    return path.replaceAll('%', '%25');
  }
}

export interface OperationInput {
  principal: Principal;
  /** The request body, validated against the contract's schema; undefined for a read. */
  body: unknown;
  /** Path parameters, as routed (`{id}` of GET /v1/evidence/reports/{id}). */
  params: Readonly<Record<string, string | undefined>>;
  idempotencyKey: string | undefined;
  requestId: string;
  signal: AbortSignal;
}

type OperationHandler = (input: OperationInput) => Promise<ApiResponse>;

/** One operation of the contract, registered under its operationId. */
export interface Operation {
  /** The operation's own part of step 2, after the contract's schema (R7's limits); throws its error. */
  validate?: (input: OperationInput) => void;
  handle: OperationHandler;
}

interface ApiFrontOptions {
  document: Document;
  /** `log` is the request's logger (requestId, traceId): a background failure it causes is logged there (R41). */
  authenticate: (apiKey: string, log: Logger) => Promise<Principal>;
  operations: Record<string, Operation>;
  bodyMaxBytes: number;
  telemetry?: Telemetry;
}

type KoaCtx = Koa.ParameterizedContext<AppState>;

/** Contract violations of one response; empty when it conforms. */
export type ResponseChecker = (
  operationId: string,
  status: number,
  body: unknown,
  headers: Record<string, unknown>,
) => string[];

interface ApiFront {
  middleware: Koa.Middleware<AppState>;
  checkResponse: ResponseChecker;
}

interface Route {
  readonly contract: ContractOperation;
  readonly operation: Operation;
}

const NO_INTAKE: Intake = { idempotencyKey: undefined, body: undefined };

export async function createApiFront(options: ApiFrontOptions): Promise<ApiFront> {
  const telemetry = options.telemetry ?? noopTelemetry;
  const api = new OpenAPIBackend({
    // openapi-backend mutates the definition while dereferencing: give it its own copy.
    definition: structuredClone(options.document),
    strict: true,
    quick: false,
    customizeAjv: (ajv) => customizeAjv(ajv),
  });
  await api.init();
  for (const { operationId } of api.router.getOperations()) {
    if (!operationId || !options.operations[operationId]) throw new Error(`no operation registered for ${operationId ?? 'an operation without operationId'}`);
  }

  /** The request as openapi-backend reads it. The API reads no query parameters; the key in particular is never read from it (R5). */
  const contractRequest = (ctx: KoaCtx, intake: Intake): OpenApiRequest => ({
    method: ctx.method,
    path: literalIfMalformed(ctx.path),
    // R11: the header's schema holds for the key after trimming, so the trimmed key is what Ajv
    // sees; validated raw, a valid key padded with a no-break space would fail its maxLength.
    headers: { ...(ctx.req.headers as OpenApiRequest['headers']), ...(intake.idempotencyKey === undefined ? {} : { 'idempotency-key': intake.idempotencyKey }) },
    query: {},
    body: intake.body,
  });

  /** 404 when no path of the contract matches, 405 with Allow (RFC 9110 15.5.6) when one does with another method. */
  const routeOf = (ctx: KoaCtx): Route => {
    const request = contractRequest(ctx, NO_INTAKE);
    const contract = api.router.matchOperation(request);
    if (!contract) {
      // The contract's methods under which this path matches an operation.
      const methods = [...new Set(api.router.getOperations().map((operation) => operation.method.toUpperCase()))].filter((method) =>
        api.router.matchOperation({ ...request, method }),
      );
      if (methods.length === 0) throw new ApiError('not_found');
      throw new ApiError('method_not_allowed', { headers: { allow: methods.join(', ') } });
    }
    ctx.state.operationId = contract.operationId;
    return { contract, operation: options.operations[contract.operationId ?? ''] as Operation };
  };

  /** Step 1. */
  const authenticateCaller = async (ctx: KoaCtx): Promise<Principal> => {
    const principal = await options.authenticate(readApiKey(ctx.req), ctx.state.log);
    // R53: every answer to a test key says so, its errors after authentication included.
    if (principal.mode === 'test') ctx.set('ers-mode', 'test');
    telemetry.mode(principal.mode);
    return principal;
  };

  /** R8: the contract's schema, by openapi-backend's Ajv validator; the first violation is the answer's details. */
  const validateAgainstContract = (ctx: KoaCtx, route: Route, intake: Intake): void => {
    const { errors } = api.validator.validateRequest(contractRequest(ctx, intake), route.contract);
    if (errors) throw new ApiError('invalid_request_payload', { details: firstViolation(errors) });
  };

  /** Step 2: the intake, the contract's schema, then the operation's own checks. */
  const validateInput = async (ctx: KoaCtx, route: Route, principal: Principal): Promise<OperationInput> => {
    // R52: a body that is slow to arrive is a wait on the client, like a wait on the generator:
    // its admission place is lent meanwhile (waitingOutside, after 20 ms), or slow uploads of one
    // key, authenticated but not yet at step 3's in-flight limit, would hold every place and shed
    // every other customer.
    const intake = route.contract.requestBody ? await waitingOutside(() => readIntake(ctx.req, options.bodyMaxBytes)) : NO_INTAKE;
    validateAgainstContract(ctx, route, intake);
    const { params } = api.router.parseRequest(contractRequest(ctx, intake), route.contract);
    const input: OperationInput = {
      principal,
      body: intake.body,
      params: Object.fromEntries(Object.entries(params as Record<string, string | string[]>).map(([name, value]) => [name, Array.isArray(value) ? value[0] : value])),
      idempotencyKey: intake.idempotencyKey,
      requestId: ctx.state.requestId,
      signal: ctx.state.abortSignal,
    };
    route.operation.validate?.(input);
    return input;
  };

  const middleware: Koa.Middleware<AppState> = async (ctx) => {
    const route = routeOf(ctx);
    const principal = await telemetry.step('1_authenticate', () => authenticateCaller(ctx));
    // Step 2 is a step of the operations that take a body (spec section 1); a read's path
    // parameters are checked by the same validator, outside the step metrics.
    const input = route.contract.requestBody
      ? await telemetry.step('2_validate', () => validateInput(ctx, route, principal))
      : await validateInput(ctx, route, principal);
    const response = await route.operation.handle(input);
    ctx.status = response.status;
    for (const [name, value] of Object.entries(response.headers ?? {})) ctx.set(name, value);
    ctx.body = response.body;
  };

  const checkResponse: ResponseChecker = (operationId, status, body, headers) => {
    // openapi-backend finds no schema for a status the operation does not list, and then reports
    // nothing: a status outside the contract (the list SDKs and gateways are built on) is a
    // violation in itself.
    const responses = api.getOperation(operationId)?.responses ?? {};
    if (!(String(status) in responses) && !(`${String(status).charAt(0)}XX` in responses) && !('default' in responses)) {
      return [`/ status ${status} is not among the operation's responses`];
    }
    const bodyErrors = api.validateResponse(body, operationId, status).errors ?? [];
    // 'any': the headers present must match their schemas. ('superset' would demand every
    // documented header, ignoring `required: false`; the ones the contract requires,
    // x-request-id and cache-control, are set on every response by requestContext.)
    const headerErrors =
      api.validateResponseHeaders(headers, operationId, { statusCode: status, setMatchType: SetMatchType.Any }).errors ?? [];
    return [...bodyErrors, ...headerErrors].map((e) => `${e.instancePath || '/'} ${e.message ?? e.keyword}`);
  };

  return { middleware, checkResponse };
}
