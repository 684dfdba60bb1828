// The one composition root: builds adapters and services once from the
// validated configuration, builds the app and listens. main.ts and the integration tests both
// start the service through here, so the tests run the production wiring; tests may replace
// a port (clock, image fetcher, generator) or hand in an open database.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'pino';
import { describeCause } from './shared/describe-cause.ts';
import { createApp } from './app.ts';
import { ApiKeyAuthenticator } from './auth/api-key-authenticator.ts';
import { idempotencyLeaseMs, idempotencyRenewBelowMs, type Config } from './config.ts';
import { openDatabase, type Database } from './db/database.ts';
import { createSql } from './db/sql.ts';
import { createReportGenerator } from './generation/create-report-generator.ts';
import type { ReportGenerator } from './generation/report-generator.ts';
import { OfflineReportGenerator } from './generation/offline-generator.ts';
import { createResultValidator } from './generation/result-schema.ts';
import type { ContractViolation } from './http/contract-guard.ts';
import { loadContract, type Contract } from './http/contract.ts';
import { createEvidenceReport } from './http/handlers/create-evidence-report.ts';
import { getCurrentUsage } from './http/handlers/get-current-usage.ts';
import { getEvidenceReport } from './http/handlers/get-evidence-report.ts';
import { PgReportReader } from './reports/pg-report-reader.ts';
import { PgIdempotencyStore } from './idempotency/pg-idempotency-store.ts';
import { ByteBudget } from './images/byte-budget.ts';
import { composeImageBoundary } from './images/compose-image-boundary.ts';
import type { ImageFetcher } from './images/image-fetcher.ts';
import type { ImageNormalizer } from './images/image-normalizer.ts';
import { createFlexibleRateLimiter } from './rate-limit/flexible-rate-limiter.ts';
import { CreateEvidenceReport } from './reports/create-evidence-report.ts';
import { PgReportRepository } from './reports/pg-report-repository.ts';
import { PgApiKeyDirectory } from './accounts/pg-api-key-directory.ts';
import { PgPlanUsageReader } from './usage/plan-usage-reader.ts';
import { createObservability } from './observability/create-observability.ts';
import { systemClock, type Clock } from './shared/clock.ts';
import { ExpirySweeper } from './maintenance/expiry-sweeper.ts';
import { applyEgressProxy, proxyConfigured } from './shared/egress-proxy.ts';
import { AdmissionControl } from './http/admission-control.ts';
import { listenOnAcceptSockets } from './http/accept-sockets.ts';
import { clientErrorAnswerer, edgeListener, edgeServerOptions } from './http/edge.ts';
import { readinessGate, readyUnlessDraining } from './http/readiness-gate.ts';
import { CustomerInFlight } from './rate-limit/customer-in-flight.ts';

export interface ServiceOverrides {
  clock?: Clock;
  imageFetcher?: ImageFetcher;
  imageNormalizer?: ImageNormalizer;
  generator?: ReportGenerator;
  /** An open database; the service then neither migrates nor closes it. */
  database?: Database;
  onContractViolation?: (violation: ContractViolation) => void;
  /**
   * Runs on the open, migrated database before the port listens: what must exist before the
   * first connection is accepted (the demo key file of `npm start`, operator-interface.md).
   */
  beforeListen?: (database: Database) => Promise<void>;
}

export interface RunningService {
  readonly url: string;
  readonly server: Server;
  /** Open client connections of the API port, whichever of its accept sockets took them (R51). */
  connections(): number;
  readonly database: Database;
  /** The metrics listener's URL (`.../metrics`) when METRICS_PORT is set (R40). */
  readonly metricsUrl: string | undefined;
  /** Stop: no new connections, in-flight requests finish (bounded by SHUTDOWN_TIMEOUT_MS), then close. */
  close(): Promise<void>;
  /**
   * SIGTERM (R35): /readyz turns 503 at once and answers carry `connection: close`; serving goes
   * on for SHUTDOWN_DRAIN_MS, then close().
   */
  shutdown(): Promise<void>;
  /** True from the moment shutdown (or close) began. */
  readonly draining: boolean;
}

export async function startService(config: Config, logger: Logger, overrides: ServiceOverrides = {}): Promise<RunningService> {
  if (config.remoteImageAllowCidrs.length > 0) {
    logger.warn(
      { allowCidrs: config.remoteImageAllowCidrs },
      'REMOTE_IMAGE_ALLOW_CIDRS is set: these ranges bypass the private-address block of the image fetcher. ' +
        'For local testing only; never set it in production.',
    );
  }
  // R45: the generator, its token requests and OTLP go through the egress proxy; images never do.
  // The proxy's URL is not logged (it may carry credentials).
  const restoreEgress = applyEgressProxy(config.egressProxy);
  if (proxyConfigured(config.egressProxy)) logger.info('egress proxy on: generator, token requests and OTLP exports; never image fetches (R45)');
  const contract = await loadContract(undefined, config.idempotencyRetentionHours);
  const ownsDatabase = overrides.database === undefined;
  const database = overrides.database ?? (await openDatabase(config, { migrate: true, logger, embeddedRole: 'server' }));
  // A start that fails once the database is open closes it before the error goes on: the
  // embedded database's lock file, socket and short-path directory (R49) must not outlive a
  // process that exits on that error (a port it may not bind, a model that answers 404, R42).
  try {
    await overrides.beforeListen?.(database);
    return await serve({ config, logger, overrides, contract, database, ownsDatabase, restoreEgress });
  } catch (error) {
    if (ownsDatabase) await settleWithin(database.close(), CLOSE_FAILED_START_MS);
    restoreEgress();
    throw error;
  }
}

/** What startService has set up before the service itself is assembled on the open database. */
interface Assembly {
  readonly config: Config;
  readonly logger: Logger;
  readonly overrides: ServiceOverrides;
  readonly contract: Contract;
  readonly database: Database;
  /** Whether close() closes the database (not when a test handed its own in). */
  readonly ownsDatabase: boolean;
  readonly restoreEgress: () => void;
}

async function serve({ config, logger, overrides, contract, database, ownsDatabase, restoreEgress }: Assembly): Promise<RunningService> {
  const { orm } = database;
  // R40, R41: metrics and traces, or nothing loaded at all when neither is configured. The pool
  // and the process-wide image byte budget are read at scrape time.
  const imageBudget = new ByteBudget(config.imageBytesInFlightMax);
  const pool = await orm.em.getConnection().getNativeClient();
  // R52: API requests are admitted, queued or refused before the application runs (in the HTTP
  // listener below). ADMISSION_MAX_QUEUE_MS=0 turns it off (to compare, as the bench does).
  const admission =
    config.admissionMaxQueueMs === 0
      ? undefined
      : new AdmissionControl({
          maxQueueMs: config.admissionMaxQueueMs,
          maxConcurrency: config.admissionMaxConcurrency,
          databaseWaiting: () => pool.waitingCount,
          databaseConnections: pool.options.max ?? config.dbPoolSize,
        });
  const observability = await createObservability(config, logger, { pool, imageBudget, admission: () => admission });
  const { telemetry } = observability;
  const sql = await createSql(orm, telemetry);
  const clock = overrides.clock ?? systemClock;
  const rateLimiter = await createFlexibleRateLimiter({
    store: config.rateLimitStore,
    points: config.rateLimitRequests,
    windowSeconds: config.rateLimitWindowSeconds,
    sql,
    redisUrl: config.redisUrl,
    redisTlsCa: config.redisTlsCa,
    bounds: { connectTimeoutMs: config.dbConnectTimeoutMs, statementTimeoutMs: config.dbStatementTimeoutMs },
    logger,
  });
  const validateResult = createResultValidator(contract.document);
  const generator = overrides.generator ?? (await createReportGenerator(config, contract.document, logger, observability.generationObserver));
  const images = composeImageBoundary(config, {
    budget: imageBudget,
    generator,
    fetcher: overrides.imageFetcher,
    normalizer: overrides.imageNormalizer,
  });
  const idempotency = new PgIdempotencyStore({
    sql,
    clock,
    log: logger,
    leaseMs: idempotencyLeaseMs(config),
    renewBelowMs: idempotencyRenewBelowMs(config),
    settleMs: config.dbConnectTimeoutMs + config.dbStatementTimeoutMs + 1_000,
    retentionMs: config.idempotencyRetentionHours * 3_600_000,
  });
  const createReport = new CreateEvidenceReport({
    clock,
    limits: {
      textMaxChars: config.evidenceTextMaxChars,
      imageMaxCount: config.imageMaxCount,
      urlMaxChars: config.imageUrlMaxChars,
      languageMaxChars: config.languageMaxChars,
    },
    rateLimiter,
    idempotency,
    reports: new PgReportRepository(sql),
    planUsage: new PgPlanUsageReader(sql),
    images,
    generator,
    // R53: test mode never reaches a paid generator, whatever REPORT_GENERATOR says.
    testGenerator: generator instanceof OfflineReportGenerator ? generator : new OfflineReportGenerator(),
    validateResult,
    telemetry,
    inFlight: new CustomerInFlight(config.maxInFlightPerCustomer),
  });
  const authenticator = new ApiKeyAuthenticator({ keys: new PgApiKeyDirectory(sql), clock, log: logger });
  // R51: one database probe a second, shared by every /readyz caller.
  const databaseReady = readinessGate(() => database.isReady());
  const app = await createApp({
    logger,
    contract,
    authenticate: (key, log) => authenticator.authenticate(key, log),
    operations: {
      createEvidenceReport: createEvidenceReport(createReport),
      getCurrentUsage,
      getEvidenceReport: getEvidenceReport({ reports: new PgReportReader(sql), validateResult }),
    },
    isReady: readyUnlessDraining(() => draining, databaseReady),
    draining: () => draining,
    bodyMaxBytes: config.bodyMaxBytes,
    onContractViolation: overrides.onContractViolation,
    telemetry,
  });

  // R35: from SIGTERM on, /readyz answers 503 and every answer closes its connection, so that
  // neither a load balancer nor a client reuses a connection that is about to close.
  let draining = false;
  // The application's requests in progress, so that close() can let the ones it cuts unwind.
  const handling = new Set<Promise<void>>();
  const tracked =
    (handle: (req: IncomingMessage, res: ServerResponse) => Promise<void>) =>
    (req: IncomingMessage, res: ServerResponse): Promise<void> => {
      const work = handle(req, res);
      const settled: Promise<void> = work.then(
        () => void handling.delete(settled),
        () => void handling.delete(settled),
      );
      handling.add(settled);
      return work;
    };
  // R51: the bounds on connections and on the time a peer may take; R52: admission first.
  // Connections that have not sent a request yet. Node counts them neither idle (so
  // closeIdleConnections leaves them) nor busy, and stops its header timeout once the server
  // closes: a peer that opened a connection and sent nothing would hold the exit until
  // SHUTDOWN_TIMEOUT_MS with nothing in flight (R35). They are closed with the idle ones.
  const unused = new Set<Socket>();
  const edge = edgeListener({
    handle: tracked(app.callback()),
    admission,
    draining: () => draining,
    telemetry,
    logger,
    responseTimeoutMs: config.requestTimeoutMs,
  });
  const listener = (req: IncomingMessage, res: ServerResponse): void => {
    unused.delete(req.socket);
    edge(req, res);
  };
  const server = createServer(edgeServerOptions(config), listener);
  // An Expect other than 100-continue would get Node's bare 417, without R9's headers; RFC 9110
  // lets a server ignore an expectation it does not know (section 10.1.1), so it is served.
  server.on('checkExpectation', listener);
  // R51's timeouts and malformed heads are answered with R9's headers, not Node's bare line.
  server.on('clientError', clientErrorAnswerer({ logger, telemetry, headersTimeoutMs: config.headersTimeoutMs }));
  server.on('connection', (socket: Socket) => {
    unused.add(socket);
    socket.once('close', () => unused.delete(socket));
  });
  // R37: a burst of new connections queues (up to the kernel's somaxconn) instead of being
  // refused, and is taken off that queue by several sockets at once (accept-sockets.ts).
  const acceptSockets = await naming('PORT', () => listenOnAcceptSockets(server, {
    port: config.port,
    host: config.host,
    backlog: config.listenBacklog,
    maxConnections: config.maxConnections,
    // R51: excess connections are closed, never the process; said at most once a second.
    onAcceptError: everySecondAtMost((error: NodeJS.ErrnoException, dropped: number) =>
      logger.error({ code: error.code, dropped }, 'connections dropped: accepting failed (file descriptors or memory exhausted)'),
    ),
    // A flood of connections is visible: the health probes of an orchestrator cannot connect
    // either while the bound is reached (operations.md, "Edge bounds").
    onRefused: everySecondAtMost((_: void, refused: number) =>
      logger.warn({ refused, maxConnections: config.maxConnections }, 'connections refused: MAX_CONNECTIONS are open'),
    ),
  }));
  // R36: expired idempotency records, abandoned claims and rate-limit counters are deleted in
  // the background, by one instance at a time.
  const sweeper = new ExpirySweeper({
    // R47: its session-level lock over DATABASE_DIRECT_URL when set; behind a transaction-mode
    // pooler without it, a transaction-level lock in each batch's own statement.
    pool: await database.sessionPool(),
    lock: config.databasePreparedStatements || config.databaseDirectUrl !== undefined ? 'session' : 'statement',
    clock,
    log: logger,
    intervalMs: config.idempotencySweepIntervalSeconds * 1000,
  });
  sweeper.start();
  const { address } = acceptSockets;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  const url = `http://${host}:${address.port}`;
  const metricsUrl = await naming('METRICS_PORT', () => observability.listen());

  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= (async () => {
      draining = true;
      const stopped = acceptSockets.close();
      server.closeIdleConnections();
      for (const socket of unused) socket.destroy();
      const timer = setTimeout(() => server.closeAllConnections(), config.shutdownTimeoutMs);
      await stopped;
      clearTimeout(timer);
      // Requests cut at the bound are still unwinding: each gives its idempotency key back (R14)
      // once its abort arrives, and that needs the pool and the release retry still open. So
      // they are waited for, bounded, before either closes.
      await settleWithin(Promise.allSettled(handling), UNWIND_MS);
      admission?.close();
      idempotency.close();
      // A database, store or collector that hangs must not hold the exit (R33, R35): the
      // dependencies close together, bounded; the ones that failed or ran out of time are named.
      await closeWithin(
        {
          expiry_sweeper: () => sweeper.stop(),
          rate_limit_store: () => rateLimiter.close(),
          observability: () => observability.close(),
          ...(ownsDatabase ? { database: () => database.close() } : {}),
        },
        CLOSE_DEPENDENCIES_MS,
        logger,
      );
      restoreEgress();
    })());
  const shutdown = async () => {
    draining = true;
    await sleep(config.shutdownDrainMs);
    await close();
  };
  return {
    url,
    server,
    connections: () => acceptSockets.connections(),
    database,
    metricsUrl,
    close,
    shutdown,
    get draining() {
      return draining;
    },
  };
}

/** Calls `report` with the first of a run of errors and how many came since the last call, at most once a second. */
function everySecondAtMost<E>(report: (error: E, count: number) => void): (error: E) => void {
  let count = 0;
  let last = -Infinity;
  let latest: E;
  let timer: NodeJS.Timeout | undefined;
  const flush = (): void => {
    timer = undefined;
    if (count === 0) return;
    last = performance.now();
    report(latest, count);
    count = 0;
  };
  return (error) => {
    count += 1;
    latest = error;
    const since = performance.now() - last;
    if (since >= 1_000) flush();
    // The events of the rest of the second are told once it has passed, not left for a next one.
    else timer ??= setTimeout(flush, 1_000 - since).unref();
  };
}

/**
 * How long requests cut at SHUTDOWN_TIMEOUT_MS may take to unwind (a release statement each),
 * then how long closing the dependencies may take: together within main.ts's 800 ms of room.
 */
const UNWIND_MS = 200;
const CLOSE_DEPENDENCIES_MS = 500;
/** How long closing the database may take when the start failed (PGlite writes its files back). */
const CLOSE_FAILED_START_MS = 5_000;

/**
 * Closes the dependencies together within `ms`. The exit does not wait longer (R35), but the
 * operator is told which close failed (its cause's codes) and which had not finished: a database
 * that did not close may have had a statement still running, for instance.
 */
async function closeWithin(closes: Record<string, () => Promise<unknown>>, ms: number, logger: Pick<Logger, 'warn'>): Promise<void> {
  const pending = new Set(Object.keys(closes));
  const all = Promise.all(
    Object.entries(closes).map(async ([dependency, close]) => {
      try {
        await close();
      } catch (error) {
        logger.warn({ dependency, cause: describeCause(error) }, 'closing a dependency failed at shutdown');
      } finally {
        pending.delete(dependency);
      }
    }),
  );
  await settleWithin(all, ms);
  if (pending.size > 0) logger.warn({ dependencies: [...pending], boundMs: ms }, 'closing dependencies did not finish within the shutdown bound; exiting without them');
}

async function settleWithin(promise: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([promise.catch(() => undefined), new Promise((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(timer);
}

/**
 * A listener that cannot listen (a port in use, an address not on this host) stops the start
 * with its one line naming the variable of that port, as a bad value does (operator-interface.md).
 */
async function naming<T>(variable: 'PORT' | 'METRICS_PORT', listen: () => Promise<T>): Promise<T> {
  try {
    return await listen();
  } catch (error) {
    // A host that does not resolve, or is no address of this machine, is the host's variable's fault.
    const code = (error as NodeJS.ErrnoException).code;
    const named = code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'EADDRNOTAVAIL' ? HOST_OF[variable] : variable;
    throw new Error(`${named}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
}
const HOST_OF = { PORT: 'HOST', METRICS_PORT: 'METRICS_HOST' } as const;
