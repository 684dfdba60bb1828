// The one composition root (style guide point 6): builds adapters and services once from the
// validated configuration, builds the app and listens. main.ts and the integration tests both
// start the service through here, so the tests run the production wiring; tests may replace
// a port (clock, image fetcher, generator) or hand in an open database.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import { createApp } from './app.ts';
import { ApiKeyAuthenticator } from './auth/api-key-authenticator.ts';
import { idempotencyLeaseMs, type Config } from './config.ts';
import { openDatabase, type Database } from './db/database.ts';
import { createSql } from './db/sql.ts';
import { createReportGenerator } from './generation/create-report-generator.ts';
import type { ReportGenerator } from './generation/report-generator.ts';
import { createResultValidator } from './generation/result-schema.ts';
import type { ContractViolation } from './http/contract-guard.ts';
import { loadContract } from './http/contract.ts';
import { createEvidenceReport } from './http/handlers/create-evidence-report.ts';
import { getCurrentUsage } from './http/handlers/get-current-usage.ts';
import { IdempotencyStore } from './idempotency/idempotency-store.ts';
import { ByteBudget } from './images/byte-budget.ts';
import { HttpImageFetcher } from './images/http-image-fetcher.ts';
import { ImageBoundary } from './images/image-boundary.ts';
import type { ImageFetcher } from './images/image-fetcher.ts';
import type { ImageNormalizer } from './images/image-normalizer.ts';
import { SharpImageNormalizer } from './images/sharp-normalizer.ts';
import { createFlexibleRateLimiter } from './rate-limit/flexible-rate-limiter.ts';
import { CreateEvidenceReport } from './reports/create-evidence-report.ts';
import { ReportStore } from './reports/report-store.ts';
import { systemClock, type Clock } from './shared/clock.ts';
import { CurrentUsageQuery } from './usage/current-usage.ts';

export interface ServiceOverrides {
  clock?: Clock;
  imageFetcher?: ImageFetcher;
  imageNormalizer?: ImageNormalizer;
  generator?: ReportGenerator;
  /** An open database; the service then neither migrates nor closes it. */
  database?: Database;
  onContractViolation?: (violation: ContractViolation) => void;
}

export interface RunningService {
  readonly url: string;
  readonly server: Server;
  readonly database: Database;
  /** Graceful stop: no new connections, in-flight requests finish (bounded), then close. */
  close(): Promise<void>;
}

export async function startService(config: Config, logger: Logger, overrides: ServiceOverrides = {}): Promise<RunningService> {
  if (config.remoteImageAllowCidrs.length > 0) {
    logger.warn(
      { allowCidrs: config.remoteImageAllowCidrs },
      'REMOTE_IMAGE_ALLOW_CIDRS is set: these ranges bypass the private-address block of the image fetcher. ' +
        'For local testing only; never set it in production.',
    );
  }
  const contract = await loadContract();
  const ownsDatabase = overrides.database === undefined;
  const database = overrides.database ?? (await openDatabase(config, { migrate: true, logger }));
  const { orm } = database;
  const sql = await createSql(orm);
  const clock = overrides.clock ?? systemClock;
  const rateLimiter = await createFlexibleRateLimiter({
    store: config.rateLimitStore,
    points: config.rateLimitRequests,
    windowSeconds: config.rateLimitWindowSeconds,
    databaseUrl: database.url,
    poolMax: database.embedded ? 2 : Math.max(2, Math.ceil(config.dbPoolSize / 2)),
    redisUrl: config.redisUrl,
  });
  const validateResult = createResultValidator(contract.document);
  const reports = new ReportStore(sql);
  const generator = overrides.generator ?? (await createReportGenerator(config, contract.document, logger));
  // One budget for every image byte the process holds (R39); one normalizer queue (R38).
  const imageBudget = new ByteBudget(config.imageBytesInFlightMax);
  const images = new ImageBoundary({
    fetcher:
      overrides.imageFetcher ??
      new HttpImageFetcher({
        maxBytes: config.imageMaxBytes,
        timeoutMs: config.imageFetchTimeoutMs,
        maxRedirects: config.imageMaxRedirects,
        concurrency: config.imageFetchConcurrency,
        budget: imageBudget,
        allowCidrs: config.remoteImageAllowCidrs,
      }),
    normalizer:
      overrides.imageNormalizer ?? new SharpImageNormalizer({ maxDimension: config.imageMaxDimension, maxPixels: config.imageMaxPixels }),
    budget: imageBudget,
    generatorCopyBytes: (image) => generator.imageCopyBytes?.(image) ?? 0,
  });
  const createReport = new CreateEvidenceReport({
    sql,
    clock,
    log: logger,
    limits: {
      textMaxChars: config.evidenceTextMaxChars,
      imageMaxCount: config.imageMaxCount,
      urlMaxChars: config.imageUrlMaxChars,
      languageMaxChars: config.languageMaxChars,
    },
    rateLimiter,
    idempotency: new IdempotencyStore({
      sql,
      leaseMs: idempotencyLeaseMs(config),
      retentionMs: config.idempotencyRetentionHours * 3_600_000,
    }),
    reports,
    images,
    generator,
    validateResult,
  });
  const authenticator = new ApiKeyAuthenticator({ sql, clock, log: logger });
  const app = await createApp({
    logger,
    contract,
    authenticate: (key) => authenticator.authenticate(key),
    operations: {
      createEvidenceReport: createEvidenceReport(createReport),
      getCurrentUsage: getCurrentUsage(new CurrentUsageQuery({ sql, clock })),
    },
    isReady: () => database.orm.checkConnection().then((status) => status.ok),
    bodyMaxBytes: config.bodyMaxBytes,
    onContractViolation: overrides.onContractViolation,
  });

  const server = createServer({ requestTimeout: 120_000, headersTimeout: 30_000 }, app.callback());
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  const url = `http://${host}:${address.port}`;

  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= (async () => {
      const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      const timer = setTimeout(() => server.closeAllConnections(), config.shutdownTimeoutMs);
      await stopped;
      clearTimeout(timer);
      await rateLimiter.close().catch(() => undefined);
      if (ownsDatabase) await database.close();
    })());
  return { url, server, database, close };
}
