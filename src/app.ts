// The Koa application: only the order of middleware (style guide point 6). Everything it needs
// is built by the composition root and passed in.
import Koa from 'koa';
import type { Logger } from 'pino';
import type { Principal } from './auth/principal.ts';
import type { AppState } from './http/app-state.ts';
import type { Contract } from './http/contract.ts';
import { contractGuard, type ContractViolation } from './http/contract-guard.ts';
import { errorEnvelope } from './http/error-envelope.ts';
import { createOpenApiBridge, type OperationHandler } from './http/openapi-bridge.ts';
import { requestContext } from './http/request-context.ts';
import { systemRoutes } from './http/system-routes.ts';
import type { Telemetry } from './observability/telemetry.ts';

export interface AppDependencies {
  logger: Logger;
  contract: Contract;
  authenticate: (apiKey: string, log: Logger) => Promise<Principal>;
  /** Keyed by the contract's operationIds (style guide point 3). */
  operations: { createEvidenceReport: OperationHandler; getCurrentUsage: OperationHandler };
  isReady: () => Promise<boolean>;
  bodyMaxBytes: number;
  onContractViolation?: (violation: ContractViolation) => void;
  /** Metrics and traces (R40, R41); none when absent. */
  telemetry?: Telemetry;
}

export async function createApp(deps: AppDependencies): Promise<Koa<AppState>> {
  const bridge = await createOpenApiBridge({
    document: deps.contract.document,
    authenticate: deps.authenticate,
    operations: deps.operations,
    bodyMaxBytes: deps.bodyMaxBytes,
    telemetry: deps.telemetry,
  });
  const app = new Koa<AppState>();
  // Errors are answered and logged by errorEnvelope; Koa's own stderr printing stays off.
  app.silent = true;
  app.use(requestContext(deps.logger, deps.telemetry));
  app.use(contractGuard(bridge.checkResponse, deps.onContractViolation ?? (() => {})));
  app.use(errorEnvelope());
  app.use(systemRoutes({ contract: deps.contract, isReady: deps.isReady }));
  app.use(bridge.middleware);
  return app;
}
