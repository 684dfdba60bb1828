// The Koa application: only the order of middleware. Everything it needs
// is built by the composition root and passed in.
import Koa from 'koa';
import type { Logger } from 'pino';
import type { Principal } from './auth/principal.ts';
import type { AppState } from './http/app-state.ts';
import type { Contract } from './http/contract.ts';
import { contractGuard, type ContractViolation } from './http/contract-guard.ts';
import { answerAtEndOfTurn } from './http/end-of-turn.ts';
import { errorEnvelope } from './http/error-envelope.ts';
import { createApiFront, type Operation } from './http/api-front.ts';
import { requestContext } from './http/request-context.ts';
import { systemRoutes } from './http/system-routes.ts';
import type { Telemetry } from './observability/telemetry.ts';

interface AppDependencies {
  logger: Logger;
  contract: Contract;
  authenticate: (apiKey: string, log: Logger) => Promise<Principal>;
  /** Keyed by the contract's operationIds, so a handler is found by the contract's own name. */
  operations: { createEvidenceReport: Operation; getCurrentUsage: Operation; getEvidenceReport: Operation };
  isReady: () => Promise<boolean>;
  /** R35: whether the instance is draining (its answers then close their connections); never when absent. */
  draining?: () => boolean;
  bodyMaxBytes: number;
  onContractViolation?: (violation: ContractViolation) => void;
  /** Metrics and traces (R40, R41); none when absent. */
  telemetry?: Telemetry;
}

export async function createApp(deps: AppDependencies): Promise<Koa<AppState>> {
  const front = await createApiFront({
    document: deps.contract.document,
    authenticate: deps.authenticate,
    operations: deps.operations,
    bodyMaxBytes: deps.bodyMaxBytes,
    telemetry: deps.telemetry,
  });
  const app = new Koa<AppState>();
  // Errors are answered and logged by errorEnvelope; Koa's own stderr printing stays off.
  app.silent = true;
  // Outermost: the answer is written with the turn's other answers (end-of-turn.ts, R52), and
  // closes its connection if draining began while it was being worked on (R35).
  app.use(answerAtEndOfTurn(deps.draining));
  app.use(requestContext(deps.logger, deps.telemetry));
  app.use(contractGuard(front.checkResponse, deps.onContractViolation ?? (() => {})));
  app.use(errorEnvelope());
  app.use(systemRoutes({ contract: deps.contract, isReady: deps.isReady }));
  app.use(front.middleware);
  return app;
}
