// openapi-backend at the contract edges only (style guide point 4): routing by operationId,
// the x-api-key security handler, request validation mapped to the catalogue, 404/405, and the
// operation handlers registered under their operationIds.
//
// Order inside one request (spec section 1, rulings R5 and R29):
//   route (404 not_found / 405 method_not_allowed)
//   -> authenticate (security handler: 401 missing_api_key / invalid_api_key, 503)
//   -> intake, only for operations with a body (postSecurityHandler): content type,
//      Idempotency-Key, body size, JSON syntax
//   -> schema validation (validationFail: 400 invalid_request_payload with R8 details)
//   -> operation handler.
import { OpenAPIBackend, SetMatchType } from 'openapi-backend';
import type { Context as OpenApiContext, Document, Request as OpenApiRequest } from 'openapi-backend';
import type Koa from 'koa';
import type { Logger } from 'pino';
import { ApiError, isApiError } from '../errors/catalogue.ts';
import type { Principal } from '../auth/principal.ts';
import { readApiKey } from './api-key-header.ts';
import { checkJsonContentType, parseJson, readBody, readIdempotencyKey } from './request-intake.ts';
import { customizeAjv } from './validation-formats.ts';
import { firstViolation } from './validation-details.ts';
import type { AppState } from './app-state.ts';
import { noopTelemetry, type Telemetry } from '../observability/telemetry.ts';

/** What an operation handler returns; the bridge writes it to Koa. */
export interface ApiResponse {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

export interface OperationInput {
  principal: Principal;
  body: unknown;
  idempotencyKey: string | undefined;
  requestId: string;
  signal: AbortSignal;
}

export type OperationHandler = (input: OperationInput) => Promise<ApiResponse>;

export interface BridgeOptions {
  document: Document;
  /** `log` is the request's logger (requestId, traceId): a background failure it causes is logged there (R41). */
  authenticate: (apiKey: string, log: Logger) => Promise<Principal>;
  operations: Record<string, OperationHandler>;
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

export interface OpenApiBridge {
  middleware: Koa.Middleware<AppState>;
  checkResponse: ResponseChecker;
}

export async function createOpenApiBridge(options: BridgeOptions): Promise<OpenApiBridge> {
  const telemetry = options.telemetry ?? noopTelemetry;
  const api = new OpenAPIBackend({
    // openapi-backend mutates the definition while dereferencing: give it its own copy.
    definition: structuredClone(options.document),
    strict: true,
    quick: false,
    customizeAjv: (ajv) => customizeAjv(ajv),
    // Each request gets its own parsed body via postSecurityHandler, after authentication.
    validate: true,
  });

  api.registerSecurityHandler('ApiKeyAuth', async (_c: OpenApiContext, ctx: KoaCtx) => {
    return telemetry.step('1_authenticate', async () => options.authenticate(readApiKey(ctx.req), ctx.state.log));
  });

  api.register({
    notFound: () => {
      throw new ApiError('not_found');
    },
    methodNotAllowed: () => {
      throw new ApiError('method_not_allowed');
    },
    postRoutingHandler: (c: OpenApiContext, ctx: KoaCtx) => {
      if (c.operation?.operationId) ctx.state.operationId = c.operation.operationId;
    },
    unauthorizedHandler: (c: OpenApiContext) => {
      // The security handler threw an ApiError (401 or 503): that is the answer.
      const result = (c.security as Record<string, { error?: unknown } | undefined> | undefined)?.ApiKeyAuth;
      throw isApiError(result?.error) ? result.error : new ApiError('invalid_api_key');
    },
    postSecurityHandler: async (c: OpenApiContext, ctx: KoaCtx, request: OpenApiRequest) => {
      if (!c.security?.authorized) return;
      ctx.state.principal = c.security.ApiKeyAuth as Principal;
      if (!c.operation?.requestBody) return;
      // Step 2 runs from here to the application limits in the pipeline (R40, R41).
      telemetry.beginStep('2_validate');
      checkJsonContentType(ctx.req);
      ctx.state.idempotencyKey = readIdempotencyKey(ctx.req);
      // R11: the header's schema holds for the key after trimming. Validated raw, a key that
      // JS trimming accepts (a no-break space around 255 characters) was a 400
      // invalid_request_payload instead of a valid key.
      if (ctx.state.idempotencyKey !== undefined) request.headers = { ...request.headers, 'idempotency-key': ctx.state.idempotencyKey };
      const parsed = parseJson(await readBody(ctx.req, options.bodyMaxBytes));
      // openapi-backend re-parses string bodies as JSON: only objects may reach it, so a JSON
      // string such as "{\"context\":...}" can never be taken for an object.
      if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
        throw new ApiError('invalid_request_payload', { details: { pointer: '', rule: 'type' } });
      }
      request.body = parsed;
    },
    validationFail: (c: OpenApiContext) => {
      throw new ApiError('invalid_request_payload', { details: firstViolation(c.validation.errors ?? []) });
    },
  });

  for (const [operationId, handler] of Object.entries(options.operations)) {
    api.register(operationId, (_c: OpenApiContext, ctx: KoaCtx, request: OpenApiRequest) => {
      const principal = ctx.state.principal;
      if (!principal) throw new ApiError('invalid_api_key');
      return handler({
        principal,
        // The body parsed after authentication and validated above (context.request was
        // parsed at routing time, before the body was read).
        body: request.body,
        idempotencyKey: ctx.state.idempotencyKey,
        requestId: ctx.state.requestId,
        signal: ctx.state.abortSignal,
      });
    });
  }
  await api.init();

  const middleware: Koa.Middleware<AppState> = async (ctx) => {
    const request: OpenApiRequest = {
      method: ctx.method,
      path: ctx.path,
      headers: ctx.req.headers as OpenApiRequest['headers'],
      // The API reads no query parameters; the key in particular is never read from it (R5).
      query: {},
    };
    const response = (await api.handleRequest(request, ctx, request)) as ApiResponse;
    ctx.status = response.status;
    for (const [name, value] of Object.entries(response.headers ?? {})) ctx.set(name, value);
    ctx.body = response.body;
  };

  const checkResponse: ResponseChecker = (operationId, status, body, headers) => {
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
